import { randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/harness.js';
import { contractViolation } from '../support/contract.js';
import { createRecordSigningClient, verifyWebhook, type Fetch, type RecordSigningClient } from '../../packages/client/src/index.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BODY = 'Alice lends Bob her ladder for the summer and Bob returns it clean by the first of September.';

type Exchange = { method: string; path: string; headers: Headers; status: number; answer: Headers };

/** What a call answered, or a failure that says what the service said instead. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}

describe('The TypeScript client: from an email-code sign-in to a sealed record, all through the client', () => {
  let t: TestApp;
  /** Every request the clients sent, as it went on the wire (each attempt of a retried one), with its answer. */
  const exchanges: Exchange[] = [];
  /** The clients' fetch: records each exchange and holds every JSON answer to the served contract, like the harness. */
  const wire: Fetch = async (request) => {
    const headers = new Headers(request.headers);
    const response = await fetch(request);
    exchanges.push({ method: request.method, path: new URL(request.url).pathname, headers, status: response.status, answer: response.headers });
    const text = await response.clone().text();
    if ((response.headers.get('content-type') ?? '').includes('json') && text) {
      const violation = await contractViolation(request.method, request.url, response.status, JSON.parse(text));
      if (violation) throw new Error(`contract violation: ${violation}`);
    }
    return response;
  };
  const client = (options: { apiKey?: string; retries?: number } = {}) =>
    createRecordSigningClient({ baseUrl: t.url, apiKey: options.apiKey, fetch: wire, rateLimit: { retries: options.retries ?? 3 } });

  /** Signs in as `email` with the mailed code, as a person would: the client then acts with the access token. */
  async function signedIn(email: string): Promise<RecordSigningClient> {
    const person = client();
    const before = t.smtp.messages.length;
    const requested = await person.requestSignInCode(email);
    await person.signIn(requested.verification_event_id, await t.smtp.codeFor(email, before));
    return person;
  }

  /** The email_otp signature ceremony for the caller's participant row; answers the finalized record. */
  async function sign(signer: RecordSigningClient, email: string, agr_id: string) {
    const method = { agr_id, method_type: 'email_otp' as const };
    ok(await signer.POST('/api/v1/agreements/{agr_id}/signature-execution', { params: { path: { agr_id } } }));
    const before = t.smtp.messages.length;
    ok(await signer.POST('/api/v1/agreements/{agr_id}/signature-execution/methods/{method_type}/start', { params: { path: method }, body: {} }));
    const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before && m.subject === 'Your signature code');
    const code = /code is (\d{6})/.exec(mail.text)![1]!;
    const submitted = ok(await signer.POST('/api/v1/agreements/{agr_id}/signature-execution/methods/{method_type}/submit', { params: { path: method }, body: { code } }));
    expect(submitted.can_finalize).toBe(true);
    return ok(await signer.POST('/api/v1/agreements/{agr_id}/signature-execution/finalize', { params: { path: { agr_id } } }));
  }

  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    // One sign-in code per address every 3 seconds: a real limit, which the 429 test below runs into.
    // Webhooks may reach the receiver on 127.0.0.1.
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '1', OTP_REQUEST_WINDOW_SECONDS: '3', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '100' });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver.stop();
  });

  it('signs in, acts with an API key, takes a two-party agreement through the ceremony to sealed, and hears of it by a verified webhook', async () => {
    const alice = await signedIn('alice@example.com');
    const created = ok(await alice.POST('/api/v1/api-keys', { body: { name: 'journey', scopes: ['create', 'retrieve', 'verify'] } }));
    const integration = client({ apiKey: created.key });

    // Alice's backend wants to hear of her records' signatures and seal.
    const endpoint = ok(await alice.POST('/api/v1/webhooks', { body: { url: `${receiver.url}/journey`, events: ['participant.signed', 'record.sealed'] } }));
    expect(endpoint.secret).toMatch(/^whsec_/);

    const draft = ok(
      await integration.POST('/api/v1/agreements', {
        body: { title: 'Ladder loan', body: BODY, on_chain_full_text: false, on_chain_include_verified_parties: false, parties: [{ display_name: 'Bob Example', contact_point_value: 'bob@example.com' }] },
      }),
    );
    expect(draft).toMatchObject({ status: 'draft', current_version: 1 });
    const renamed = ok(await integration.PATCH('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: draft.id } }, body: { title: 'Ladder loan, summer' } }));
    expect(renamed.title).toBe('Ladder loan, summer');

    const signedByAlice = await sign(integration, 'alice@example.com', draft.id);
    expect(signedByAlice.initiator_signature?.status).toBe('finalized');
    expect(ok(await integration.POST('/api/v1/agreements/{agr_id}/submit', { params: { path: { agr_id: draft.id } } })).status).toBe('pending_confirmation');

    const bob = await signedIn('bob@example.com');
    expect((await sign(bob, 'bob@example.com', draft.agr_reference)).status).toBe('sealed');

    const sealed = ok(await integration.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: draft.agr_reference } } }));
    expect(sealed).toMatchObject({ id: draft.id, status: 'sealed', title: 'Ladder loan, summer', sealed_at: expect.any(String) });
    const listed = ok(await bob.GET('/api/v1/identity/agreements', { params: { query: { status: 'sealed' } } }));
    expect(JSON.stringify(listed)).toContain(draft.id);

    // Every delivery verifies with the client's verifyWebhook over the raw body, in order, each event once.
    const deliveries = await receiver.waitFor('/journey', 3);
    const events = deliveries.map((delivery) => verifyWebhook(endpoint.secret, delivery.headers, delivery.body));
    expect(events.map((event) => event.type)).toEqual(['participant.signed', 'participant.signed', 'record.sealed']);
    expect(events.every((event) => event.data.agr_reference === draft.agr_reference)).toBe(true);
    expect(() => verifyWebhook(endpoint.secret, deliveries[0]!.headers, `${deliveries[0]!.body} `)).toThrow();

    // The key is revoked through the client too; from then on it is refused.
    expect((await alice.DELETE('/api/v1/api-keys/{key_id}', { params: { path: { key_id: created.id } } })).response.status).toBe(204);
    const refused = await integration.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: draft.id } } });
    expect([refused.response.status, refused.error?.detail]).toEqual([401, expect.any(String)]);

    // What went on the wire: one credential per call at most (the key's calls the key, including the
    // ceremony's), and every write (POST, PATCH, DELETE) an Idempotency-Key of its own; no read carried one.
    const calls = exchanges.filter((exchange) => exchange.path.startsWith('/api/v1/'));
    for (const call of calls) {
      const credentials = [call.headers.has('authorization') ? 'bearer' : null, call.headers.has('x-api-key') ? 'key' : null].filter(Boolean);
      expect(credentials.length).toBeLessThanOrEqual(1);
      const key = call.headers.get('idempotency-key');
      if (call.method === 'GET') expect(key).toBeNull();
      else expect(key).toMatch(UUID);
    }
    const writes = calls.filter((call) => call.method !== 'GET');
    expect(new Set(writes.map((call) => call.method))).toEqual(new Set(['POST', 'PATCH', 'DELETE']));
    expect(new Set(writes.map((call) => call.headers.get('idempotency-key'))).size).toBe(writes.length);
    expect(calls.filter((call) => call.headers.has('x-api-key')).map((call) => call.path)).toContain(`/api/v1/agreements/${draft.id}/signature-execution/finalize`);
  });

  it('replays a create sent again with the same Idempotency-Key: the same record, Idempotent-Replayed, nothing made twice', async () => {
    const carol = await signedIn('carol@example.com');
    const key = randomUUID();
    const body = { title: 'Bike loan', body: BODY.replace('ladder', 'bike'), on_chain_full_text: false, on_chain_include_verified_parties: false };
    const first = await carol.POST('/api/v1/agreements', { body, params: { header: { 'Idempotency-Key': key } } });
    const again = await carol.POST('/api/v1/agreements', { body, params: { header: { 'Idempotency-Key': key } } });
    expect([first.response.status, again.response.status]).toEqual([201, 201]);
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(ok(again).id).toBe(ok(first).id);
    const mine = ok(await carol.GET('/api/v1/identity/agreements'));
    expect(JSON.stringify(mine).split(ok(first).id).length - 1).toBe(1);
  });

  it('waits out a real 429 as long as its Retry-After says, sending the same Idempotency-Key again, and hands it over when told not to wait', async () => {
    const email = 'dave@example.com';
    const patient = client();
    await patient.requestSignInCode(email);
    // Within the same 3 seconds: a client that may not wait gets the 429 itself, with the service's Retry-After.
    const refused = await client({ retries: 0 }).POST('/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    expect(refused.response.status).toBe(429);
    expect(refused.error).toMatchObject({ error_code: 'rate_limited' });
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const from = exchanges.length;
    const started = Date.now();
    const requested = await patient.requestSignInCode(email);
    const elapsed = Date.now() - started;
    expect(requested.purpose).toBe('authenticate');
    const attempts = exchanges.slice(from);
    expect(attempts.map((attempt) => attempt.status).at(-1)).toBe(200);
    const waits = attempts.filter((attempt) => attempt.status === 429);
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(elapsed).toBeGreaterThanOrEqual(waits.reduce((sum, attempt) => sum + Number(attempt.answer.get('retry-after')) * 1000, 0) - 50);
    expect(new Set(attempts.map((attempt) => attempt.headers.get('idempotency-key'))).size).toBe(1);
  });

});
