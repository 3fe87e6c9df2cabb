import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.js';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const event = {
  type: 'record.sealed',
  id: 'evt_2f1c9a4b',
  timestamp: '2026-11-26T12:00:00.000Z',
  data: { agr_reference: 'AGR-2026-000042', record_id: '0f8e1d2c-3b4a-4596-8877-66554433aa11', record_type: 'agreement', status: 'sealed', current_version: 1 },
};
const body = JSON.stringify(event);

/** The headers of a delivery signed by the specification's reference implementation, not ours. */
function signed(secrets: string[], options: { at?: Date; id?: string; payload?: string } = {}) {
  const id = options.id ?? 'msg_2f1c9a4b';
  const at = options.at ?? new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, options.payload ?? body)).join(' '),
  };
}

describe('verifyWebhook', () => {
  const secret = newSecret();

  it('returns the event of a delivery signed with the secret, from a string, bytes or fetch Headers', () => {
    const headers = signed([secret]);
    expect(verifyWebhook(secret, headers, body)).toEqual(event);
    expect(verifyWebhook(secret, headers, Buffer.from(body))).toEqual(event);
    const fetchHeaders = new Headers({ 'Webhook-Id': headers['webhook-id'], 'Webhook-Timestamp': headers['webhook-timestamp'], 'Webhook-Signature': headers['webhook-signature'] });
    expect(verifyWebhook(secret, fetchHeaders, new TextEncoder().encode(body))).toEqual(event);
  });

  it('refuses a body changed after signing, even by one character or by re-serializing', () => {
    const headers = signed([secret]);
    expect(() => verifyWebhook(secret, headers, body.replace('"sealed"', '"rescinded"'))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, headers, JSON.stringify(event, null, 2))).toThrow(WebhookVerificationError);
  });

  it('refuses a correctly signed delivery whose timestamp is more than 5 minutes old or ahead (a replay)', () => {
    const old = signed([secret], { at: new Date(Date.now() - 6 * 60_000) });
    expect(() => verifyWebhook(secret, old, body)).toThrow(/too old/);
    const ahead = signed([secret], { at: new Date(Date.now() + 6 * 60_000) });
    expect(() => verifyWebhook(secret, ahead, body)).toThrow(/too new/);
    expect(verifyWebhook(secret, signed([secret], { at: new Date(Date.now() - 4 * 60_000) }), body)).toEqual(event);
  });

  it('during a secret rotation accepts the delivery under either secret, since one of its two signatures matches', () => {
    const rotated = newSecret();
    const headers = signed([secret, rotated]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyWebhook(secret, headers, body)).toEqual(event);
    expect(verifyWebhook(rotated, headers, body)).toEqual(event);
    expect(() => verifyWebhook(newSecret(), headers, body)).toThrow(WebhookVerificationError);
  });

  it('refuses another secret, another message id, and missing signature headers', () => {
    expect(() => verifyWebhook(newSecret(), signed([secret]), body)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, { ...signed([secret]), 'webhook-id': 'msg_other' }, body)).toThrow(WebhookVerificationError);
    const { 'webhook-signature': _dropped, ...unsigned } = signed([secret]);
    expect(() => verifyWebhook(secret, unsigned, body)).toThrow(/Missing required headers/);
  });
});
