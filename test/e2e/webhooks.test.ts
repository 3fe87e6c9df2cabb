import pg from 'pg';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Webhook } from 'standardwebhooks';
import { RECORD_EVENT_TYPES } from '../../src/domain/webhooks/events.js';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { webhookEventViolation } from '../support/contract.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { WebhookReceiver, type Received } from '../support/webhook-receiver.js';

const RECORD_EVENTS = [...RECORD_EVENT_TYPES];

/** What `standardwebhooks` (an implementation of the specification that is not ours) makes of a delivery. */
function verified(secret: string, received: Received): { type: string; id: string; timestamp: string; data: Record<string, unknown> } {
  // Every delivery a test looks at is also what the contract's `webhooks` section says it is.
  expect(webhookEventViolation(received.body)).toBeNull();
  return new Webhook(secret).verify(received.body, received.headers) as never;
}

/** Each delivery once (the first attempt that reached the receiver), as a receiver deduplicating on webhook-id keeps them. */
function unique(received: Received[]): Received[] {
  const seen = new Set<string>();
  return received.filter((r) => !seen.has(r.headers['webhook-id']!) && seen.add(r.headers['webhook-id']!));
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Webhooks: signed deliveries to a receiver on 127.0.0.1', () => {
  let chain: PrivateChain;
  let t: TestApp;
  let second: TestApp;
  let receiver: WebhookReceiver;
  let db: pg.Client;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    chain = await startPrivateChain();
    const settings = {
      CHAIN_RPC_URL: chain.url,
      LOCAL_STATE_DIR: chain.dir,
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '150ms,150ms,150ms',
      WEBHOOK_CONNECT_TIMEOUT_MS: '500',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_POLL_MS: '100',
      METRICS_TOKEN: 'webhooks-metrics-token',
    };
    t = await startTestApp(settings);
    second = await startTestApp(settings, { sameDatabaseAs: t });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  }, 90_000);
  afterAll(async () => {
    await db?.end();
    await second?.stop();
    await t?.stop();
    await receiver?.stop();
    await chain?.destroy();
  });

  const register = async (token: string, path: string, events: string[] = RECORD_EVENTS) => {
    const created = await t.request('POST', '/api/v1/webhooks', { token, body: { url: receiver.url + path, events, description: 'test receiver' } });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string; url: string; enabled: boolean };
  };
  const deliveries = async (token: string, id: string) => (await t.request('GET', `/api/v1/webhooks/${id}/deliveries?limit=100`, { token })).body.deliveries as any[];

  it('a two-party journey to record.anchored: every event once, in order, verified by standardwebhooks, public-safe', async () => {
    const alice = await t.signIn('hook-alice@example.com');
    const bob = await t.signIn('hook-bob@example.com');
    const forAlice = await register(alice, '/alice');
    expect(forAlice).toMatchObject({ enabled: true, url: `${receiver.url}/alice` });
    expect(forAlice.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Bob subscribes to his signatures and the seal only; he reads the record as its invited party.
    const forBob = await register(bob, '/bob', ['participant.signed', 'record.sealed']);

    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'hook-alice@example.com', party: 'hook-bob@example.com' });
    await t.app.services.sealArtifacts.make(sealed.id);
    await t.app.services.anchoring!.settle();

    const expected = ['record.created', 'participant.signed', 'record.submitted', 'participant.signed', 'record.sealed', 'record.artifacts_ready', 'record.anchored'];
    await receiver.waitFor('/alice', expected.length);
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more arrives
    // At least once: an attempt whose answer came too late is sent again with the same id; receivers
    // drop what they have seen (a loaded machine can make the receiver that slow).
    const received = unique(receiver.at('/alice'));
    const events = received.map((r) => verified(forAlice.secret, r));
    expect(events.map((e) => e.type)).toEqual(expected);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(expected.length);
    // Opaque ids: no counter an endpoint's owner could read the service's volume from.
    for (const r of received) expect(r.headers['webhook-id']).toMatch(/^evt_[A-Za-z0-9_-]{24}$/);
    for (const [index, event] of events.entries()) {
      expect(event.id).toBe(received[index]!.headers['webhook-id']);
      expect(event.data).toMatchObject({ agr_reference: sealed.reference, record_id: sealed.id, record_type: 'agreement', current_version: 1 });
    }
    expect(events.map((e) => e.data.status)).toEqual(['draft', 'draft', 'pending_confirmation', 'pending_confirmation', 'sealed', 'sealed', 'sealed']);
    expect(events[1]!.data).toMatchObject({ participant_role: 'initiator', participant_id: expect.any(String) });
    expect(events[3]!.data).toMatchObject({ participant_role: 'party' });
    // Never the text, anyone's address, a code or a token.
    for (const r of received) {
      expect(r.body).not.toMatch(/@example\.com|garden|Garden|Bearer|whsec_/);
      expect(r.headers['user-agent']).toBe('record-signing-webhooks/1');
    }

    await receiver.waitFor('/bob', 3);
    const bobs = unique(receiver.at('/bob')).map((r) => verified(forBob.secret, r));
    expect(bobs.map((e) => e.type)).toEqual(['participant.signed', 'participant.signed', 'record.sealed']);
    // The same event has the same id for every endpoint.
    expect(bobs[2]!.id).toBe(events[4]!.id);

    const listed = await deliveries(alice, forAlice.id);
    expect(listed).toHaveLength(expected.length);
    expect(listed.every((d) => d.status === 'delivered' && d.attempts >= 1 && d.last_status_code === 200 && d.delivered_at)).toBe(true);
    expect(listed.map((d) => d.type).reverse()).toEqual(expected);
  }, 120_000);

  it('a receiver answering 500 twice gets the event on the third attempt, with the same id', async () => {
    const token = await t.signIn('flaky@example.com');
    receiver.answer('/flaky', [500, 500, 204]);
    const endpoint = await register(token, '/flaky');
    const test = await t.request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ type: 'webhook.test', status: 'pending' });
    const received = await receiver.waitFor('/flaky', 3);
    expect(new Set(received.map((r) => r.headers['webhook-id']))).toEqual(new Set([test.body.event_id]));
    expect(verified(endpoint.secret, received[2]!)).toMatchObject({ type: 'webhook.test', data: { webhook_id: endpoint.id } });
    const [delivery] = await until(() => deliveries(token, endpoint.id), (list) => list[0]?.status === 'delivered');
    expect(delivery).toMatchObject({ attempts: 3, last_status_code: 204, last_error: null, failed_at: null });
  }, 30_000);

  it('a receiver that never answers is retried on the schedule and ends failed', async () => {
    const token = await t.signIn('silent@example.com');
    receiver.answer('/silent', 'hang');
    const endpoint = await register(token, '/silent');
    await t.request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token });
    const [delivery] = await until(() => deliveries(token, endpoint.id), (list) => list[0]?.status === 'failed');
    // Four attempts: the first and the schedule's three retries (150 ms each, ±10%) after 1.5 s timeouts.
    expect(delivery).toMatchObject({ attempts: 4, last_status_code: null, last_error: 'no answer within 1.5 s', next_attempt_at: null });
    const times = receiver.at('/silent').map((r) => r.at);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i += 1) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
    // A failed delivery can be sent again on request.
    receiver.answer('/silent', 200);
    const again = await t.request('POST', `/api/v1/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`, { token });
    expect(again.status).toBe(202);
    await until(() => deliveries(token, endpoint.id), (list) => list[0]?.status === 'delivered');
  }, 30_000);

  it('410 Gone disables the endpoint at once, tells its owner, and nothing more is sent to it', async () => {
    const token = await t.signIn('gone@example.com');
    receiver.answer('/gone', 410);
    const endpoint = await register(token, '/gone');
    await t.request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token });
    const disabled = await until(async () => (await t.request('GET', `/api/v1/webhooks/${endpoint.id}`, { token })).body, (w) => w.enabled === false);
    expect(disabled).toMatchObject({ disabled_reason: 'gone', disabled_at: expect.any(String) });
    const [delivery] = await deliveries(token, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
    const mail = await t.smtp.waitFor('gone@example.com', (m) => m.subject === 'A webhook endpoint was disabled');
    expect(mail.text).toContain('410 Gone');
    expect(mail.text).not.toContain('/gone');
    expect((await t.request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token })).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.at('/gone')).toHaveLength(1);
    // Enabled again by its owner, it receives what is sent from then on.
    receiver.answer('/gone', 200);
    expect((await t.request('PATCH', `/api/v1/webhooks/${endpoint.id}`, { token, body: { enabled: true } })).body).toMatchObject({ enabled: true, disabled_reason: null });
    await t.request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token });
    await receiver.waitFor('/gone', 2);
  }, 30_000);

  it('a rotated secret: deliveries carry both signatures for the overlap, each verifies', async () => {
    const token = await t.signIn('rotate@example.com');
    const endpoint = await register(token, '/rotate');
    const rotated = await t.request('POST', `/api/v1/webhooks/${endpoint.id}/rotate-secret`, { token });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await t.request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token });
    const [received] = await receiver.waitFor('/rotate', 1);
    expect(received!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verified(rotated.body.secret, received!).type).toBe('webhook.test');
    expect(verified(endpoint.secret, received!).type).toBe('webhook.test');
    expect(() => verified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, received!)).toThrow();
    // The list never shows a secret.
    const listed = await t.request('GET', '/api/v1/webhooks', { token });
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
  }, 30_000);

  it('loopback, private and link-local URLs are refused outside the allowed hosts; https is the only other scheme', async () => {
    const token = await t.signIn('ssrf@example.com');
    for (const url of ['http://10.0.0.1/hook', 'http://[::1]:8080/hook', 'http://169.254.169.254/latest/meta-data', 'http://192.168.1.20/x']) {
      const refused = await t.request('POST', '/api/v1/webhooks', { token, body: { url, events: ['record.sealed'] } });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'url'], type: 'private_address' }));
    }
    const ftp = await t.request('POST', '/api/v1/webhooks', { token, body: { url: 'ftp://example.com/x', events: ['record.sealed'] } });
    expect(ftp.status).toBe(422);
    const unknownEvent = await t.request('POST', '/api/v1/webhooks', { token, body: { url: `${receiver.url}/x`, events: ['record.exploded'] } });
    expect(unknownEvent.status).toBe(422);
    // API keys do not manage webhooks (bearer sessions only).
    const key = (await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } })).body.key;
    expect((await t.request('GET', '/api/v1/webhooks', { apiKey: key })).status).toBe(403);
    // Another identity's endpoint is not found.
    const other = await t.signIn('ssrf-other@example.com');
    const mine = await register(token, '/mine');
    expect((await t.request('GET', `/api/v1/webhooks/${mine.id}`, { token: other })).status).toBe(404);
  });

  it('refuses clearly: the 21st endpoint (also when created at once), bad event lists, a deleted endpoint, another identity\'s deliveries, a pending redelivery', async () => {
    const token = await t.signIn('hook-limits@example.com');
    // 21 creations at once: the cap is counted under the identity's lock, so exactly 20 pass.
    const created = await Promise.all(Array.from({ length: 21 }, (_, i) => t.request('POST', '/api/v1/webhooks', { token, body: { url: `${receiver.url}/cap-${i}`, events: ['record.sealed'] } })));
    expect(created.filter((answer) => answer.status === 201)).toHaveLength(20);
    const over = created.find((answer) => answer.status !== 201)!;
    expect(over.status).toBe(409);
    expect(over.body.error_code).toBe('conflict');
    expect(over.body.detail).toMatch(/at most 20 webhook endpoints/);
    const first = created.find((answer) => answer.status === 201)!.body as { id: string };

    const empty = await t.request('PATCH', `/api/v1/webhooks/${first.id}`, { token, body: { events: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'events'] }));
    const unknown = await t.request('PATCH', `/api/v1/webhooks/${first.id}`, { token, body: { events: ['record.sealed', 'record.exploded'] } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'events', 1] }));
    const twice = await t.request('PATCH', `/api/v1/webhooks/${first.id}`, { token, body: { events: ['record.sealed', 'record.sealed'] } });
    expect(twice.status).toBe(422);
    expect(twice.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'events'] }));

    // A pending delivery (its receiver never answers) is not redelivered; another identity sees none of it.
    receiver.answer('/cap-pending', 'hang');
    const pending = (await t.request('PATCH', `/api/v1/webhooks/${first.id}`, { token, body: { url: `${receiver.url}/cap-pending` } })).body as { id: string };
    const test = await t.request('POST', `/api/v1/webhooks/${pending.id}/test`, { token });
    expect(test.status).toBeLessThan(300);
    const delivery = (test.body as { id: string }).id;
    const again = await t.request('POST', `/api/v1/webhooks/${pending.id}/deliveries/${delivery}/redeliver`, { token });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/still pending/);
    const other = await t.signIn('hook-limits-other@example.com');
    expect((await t.request('GET', `/api/v1/webhooks/${pending.id}/deliveries`, { token: other })).status).toBe(404);
    expect((await t.request('POST', `/api/v1/webhooks/${pending.id}/deliveries/${delivery}/redeliver`, { token: other })).status).toBe(404);

    // A deleted endpoint is gone everywhere.
    expect((await t.request('DELETE', `/api/v1/webhooks/${first.id}`, { token })).status).toBeLessThan(300);
    expect((await t.request('GET', `/api/v1/webhooks/${first.id}`, { token })).status).toBe(404);
    expect((await t.request('PATCH', `/api/v1/webhooks/${first.id}`, { token, body: { description: 'x' } })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/webhooks/${first.id}/deliveries`, { token })).status).toBe(404);
    // With one deleted there is room again.
    expect((await t.request('POST', '/api/v1/webhooks', { token, body: { url: `${receiver.url}/cap-again`, events: ['record.sealed'] } })).status).toBe(201);
  });

  it('two instances on one database deliver each event once', async () => {
    const token = await t.signIn('twice@example.com');
    const endpoint = await register(token, '/twice');
    const sent = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? t : second).request('POST', `/api/v1/webhooks/${endpoint.id}/test`, { token })),
    );
    expect(sent.every((s) => s.status === 202)).toBe(true);
    await receiver.waitFor('/twice', 24);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Each event once: no second instance sent one the first had claimed (a retry after a late answer aside).
    const received = receiver.at('/twice');
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(24);
    const { rows } = await db.query<{ attempts: number }>(`select d.attempts from webhook_deliveries d where d.endpoint_id = $1`, [endpoint.id]);
    expect(received).toHaveLength(rows.reduce((sum, row) => sum + row.attempts, 0));
  }, 30_000);

  it('the metrics count deliveries by status and the disabled endpoints', async () => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer webhooks-metrics-token' } });
    const families = parsePrometheusTextFormat(await response.text()) as { name: string; metrics: { value: string; labels?: Record<string, string> }[] }[];
    const family = (name: string) => families.find((f) => f.name === name)!.metrics;
    // A delivery may settle between the scrape and this query: the total and the failed ones (which stay failed) are stable.
    const { rows } = await db.query<{ total: number; failed: number }>(`select count(*)::int as total, (count(*) filter (where status = 'failed'))::int as failed from webhook_deliveries`);
    const byStatus = family('rss_webhook_deliveries');
    expect(byStatus.reduce((sum, m) => sum + Number(m.value), 0)).toBe(rows[0]!.total);
    expect(Number(byStatus.find((m) => m.labels?.status === 'failed')?.value)).toBe(rows[0]!.failed);
    expect(rows[0]!.failed).toBeGreaterThan(0);
    expect(Number(family('rss_webhook_endpoints_disabled')[0]!.value)).toBe(0);
  });

  it('nothing secret reaches a log: no secret, URL path or payload', async () => {
    const logs = t.logs() + second.logs();
    expect(logs).not.toContain('whsec_');
    for (const path of ['/alice', '/flaky', '/silent', '/gone', '/rotate']) expect(logs).not.toContain(receiver.url + path);
    expect(logs).not.toContain('"agr_reference"');
    const { rows } = await db.query<{ secret: string }>('select secret from webhook_endpoints');
    expect(rows.every((row) => !row.secret.startsWith('whsec_'))).toBe(true);
  });
});
