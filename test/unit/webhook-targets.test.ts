import { WebhookTargets } from '../../src/domain/webhooks/target.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { webhookSignature } from '../../src/domain/webhooks/signature.js';
import { Webhook } from 'standardwebhooks';

const dns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14'],
  'mixed.example.com': ['93.184.215.14', '10.1.2.3'],
  'internal.corp': ['10.20.30.40'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
};
const resolver = async (hostname: string) => {
  const addresses = dns[hostname];
  if (!addresses) throw new Error('ENOTFOUND');
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

async function refusal(targets: WebhookTargets, raw: string): Promise<string | null> {
  try {
    await targets.resolve(targets.parse(raw));
    return null;
  } catch (error) {
    if (error instanceof DomainError) return error.details.issues?.[0]?.type ?? error.code;
    throw error;
  }
}

describe('Webhook targets', () => {
  it('in production: https to public addresses only; http and non-public addresses only for allowed hosts and networks', async () => {
    const targets = new WebhookTargets({ allowedHosts: ['internal.corp', '172.16.0.0/12'], production: true, resolver });
    expect(await refusal(targets, 'https://hooks.example.com/in')).toBeNull();
    expect(await refusal(targets, 'https://v6.example.com/in')).toBeNull();
    expect(await refusal(targets, 'http://hooks.example.com/in')).toBe('invalid_url');
    expect(await refusal(targets, 'http://internal.corp:8080/in')).toBeNull();
    expect(await refusal(targets, 'https://172.20.1.1/in')).toBeNull();
    expect(await refusal(targets, 'https://10.1.2.3/in')).toBe('private_address');
    // A mixed answer is how a rebinding attack slips a private address in: refused as a whole.
    expect(await refusal(targets, 'https://mixed.example.com/in')).toBe('private_address');
    expect(await refusal(targets, 'https://127.0.0.1/in')).toBe('private_address');
    expect(await refusal(targets, 'https://[::ffff:169.254.169.254]/latest')).toBe('private_address');
    expect(await refusal(targets, 'https://nowhere.example.com/in')).toBe('unresolvable_host');
    expect(await refusal(targets, 'https://user:pass@hooks.example.com/in')).toBe('invalid_url');
    expect(await refusal(targets, 'https://hooks.example.com/in#frag')).toBe('invalid_url');
    expect(await refusal(targets, `https://hooks.example.com/${'a'.repeat(2100)}`)).toBe('too_long');
  });

  it('in production an allowed address or network allows plain http to it, as an allowed host name does', async () => {
    const targets = new WebhookTargets({ allowedHosts: ['127.0.0.1', '10.0.0.0/8', '::1'], production: true, resolver });
    expect(await refusal(targets, 'http://127.0.0.1:9000/in')).toBeNull();
    expect(await refusal(targets, 'http://10.1.2.3/in')).toBeNull();
    expect(await refusal(targets, 'http://[::1]:9000/in')).toBeNull();
    expect(await refusal(targets, 'http://192.168.1.1/in')).toBe('invalid_url');
    expect(await refusal(targets, 'http://hooks.example.com/in')).toBe('invalid_url');
  });

  it('outside production plain http is accepted, the address rules are the same', async () => {
    const targets = new WebhookTargets({ allowedHosts: [], production: false, resolver });
    expect(await refusal(targets, 'http://hooks.example.com/in')).toBeNull();
    expect(await refusal(targets, 'http://127.0.0.1:9000/in')).toBe('private_address');
  });

  it('signs as the Standard Webhooks reference implementation verifies, with every secret of a rotation', () => {
    const [older, newer] = [`whsec_${Buffer.alloc(32, 1).toString('base64')}`, `whsec_${Buffer.alloc(32, 2).toString('base64')}`];
    const body = JSON.stringify({ type: 'webhook.test', id: 'evt_1', timestamp: new Date().toISOString(), data: {} });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': webhookSignature([newer, older], 'evt_1', timestamp, body) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(older).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(new Webhook(newer).verify(body, headers)).toMatchObject({ id: 'evt_1' });
    expect(() => new Webhook(newer).verify(`${body} `, headers)).toThrow();
  });
});
