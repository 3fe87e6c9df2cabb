import { createHash, randomUUID } from 'node:crypto';
import { startTestApp, type TestApp } from '../support/harness.js';
import { contractViolation, webhookEventViolation } from '../support/contract.js';
import type { Fetch, RecordSigningClient } from '../../packages/client/src/index.js';
import { installPackedClient, type InstalledClient } from '../support/client-package.js';
import { UnavailableFront } from '../support/unavailable-front.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BODY = 'Alice lends Bob her ladder for the summer and Bob returns it clean by the first of September.';

type Exchange = { method: string; path: string; headers: Headers; status: number; answer: Headers };

describe('The TypeScript client, packed and installed into an empty project: from an email-code sign-in to a sealed PDF, all through the client', () => {
  let t: TestApp;
  /** The package as `npm install` put it in an empty project; every client below is made from it. */
  let installed: InstalledClient;
  /** In front of the service: answers a 503 with Retry-After when told to, forwards everything else. */
  let front: UnavailableFront;
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
  const client = (options: { apiKey?: string; retries?: number } = {}): RecordSigningClient =>
    installed.module.createRecordSigningClient({ baseUrl: front.url, apiKey: options.apiKey, fetch: wire, retry: { retries: options.retries ?? 3 } });

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
    await signer.POST('/api/v1/agreements/{agr_id}/signature-execution', { params: { path: { agr_id } } });
    const before = t.smtp.messages.length;
    await signer.POST('/api/v1/agreements/{agr_id}/signature-execution/methods/{method_type}/start', { params: { path: method }, body: {} });
    const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before && m.subject === 'Your signature code');
    const code = /code is (\d{6})/.exec(mail.text)![1]!;
    const { data: submitted } = await signer.POST('/api/v1/agreements/{agr_id}/signature-execution/methods/{method_type}/submit', { params: { path: method }, body: { code } });
    expect(submitted.can_finalize).toBe(true);
    return (await signer.POST('/api/v1/agreements/{agr_id}/signature-execution/finalize', { params: { path: { agr_id } } })).data;
  }

  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    // One sign-in code per address every 3 seconds: a real limit, which the 429 test below runs into.
    // Webhooks may reach the receiver on 127.0.0.1; jobs make the sealed PDF.
    [t, installed] = await Promise.all([
      startTestApp({ OTP_REQUESTS_PER_WINDOW: '1', OTP_REQUEST_WINDOW_SECONDS: '3', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '100', JOBS_ENABLED: 'true' }),
      installPackedClient(),
    ]);
    front = new UnavailableFront(t.url);
    await front.start();
  }, 120_000);
  afterAll(async () => {
    await front?.stop();
    await t?.stop();
    await receiver.stop();
    await installed?.remove();
  });

  it('signs in, acts with an API key, takes a two-party agreement to sealed, hears of it by verified webhooks, downloads the sealed PDF through a 503 and iterates a listing', async () => {
    const { AuthenticationError, verifyWebhook } = installed.module;
    const alice = await signedIn('alice@example.com');
    const { data: created } = await alice.POST('/api/v1/api-keys', { body: { name: 'journey', scopes: ['create', 'retrieve', 'verify'] } });
    const integration = client({ apiKey: created.key });

    // Alice's backend wants to hear of her records' signatures, seal, and sealed PDF and card made.
    const events: ('participant.signed' | 'record.sealed' | 'record.artifacts_ready')[] = ['participant.signed', 'record.sealed', 'record.artifacts_ready'];
    const { data: endpoint } = await alice.POST('/api/v1/webhooks', { body: { url: `${receiver.url}/journey`, events } });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const { data: draft } = await integration.POST('/api/v1/agreements', {
      body: { title: 'Ladder loan', body: BODY, on_chain_full_text: false, on_chain_include_verified_parties: false, parties: [{ display_name: 'Bob Example', contact_point_value: 'bob@example.com' }] },
    });
    expect(draft).toMatchObject({ status: 'draft', current_version: 1 });
    // The service is unavailable for the edit's first attempt: the client waits the Retry-After and sends it again, with the same key.
    front.unavailableOnce('PATCH', `/api/v1/agreements/${draft.id}`, 1);
    const editFrom = exchanges.length;
    const { data: renamed } = await integration.PATCH('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: draft.id } }, body: { title: 'Ladder loan, summer' } });
    expect([renamed.title, renamed.current_version]).toEqual(['Ladder loan, summer', 1]);
    const edits = exchanges.slice(editFrom);
    expect(edits.map((edit) => edit.status)).toEqual([503, 200]);
    expect(edits[1]!.headers.get('idempotency-key')).toBe(edits[0]!.headers.get('idempotency-key'));

    const signedByAlice = await sign(integration, 'alice@example.com', draft.id);
    expect(signedByAlice.initiator_signature?.status).toBe('finalized');
    expect((await integration.POST('/api/v1/agreements/{agr_id}/submit', { params: { path: { agr_id: draft.id } } })).data.status).toBe('pending_confirmation');

    const bob = await signedIn('bob@example.com');
    expect((await sign(bob, 'bob@example.com', draft.agr_reference)).status).toBe('sealed');

    const { data: sealed } = await integration.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: draft.agr_reference } } });
    expect(sealed).toMatchObject({ id: draft.id, status: 'sealed', title: 'Ladder loan, summer', sealed_at: expect.any(String) });

    // Bob's card, an image's bytes; made on this first request (the sealed PDF is made by a job).
    const { data: card } = await bob.GET('/api/v1/agreements/{agr_id}/card.png', { params: { path: { agr_id: draft.id } } });
    expect(Buffer.from(card.subarray(1, 4)).toString('latin1')).toBe('PNG');

    // Every delivery verifies with the client's verifyWebhook over the raw body, in order, each event once.
    const deliveries = await receiver.waitFor('/journey', 4, 60_000);
    const heard = deliveries.map((delivery) => verifyWebhook(endpoint.secret, delivery.headers, delivery.body));
    expect(heard.map((event) => event.type)).toEqual(['participant.signed', 'participant.signed', 'record.sealed', 'record.artifacts_ready']);
    // Each as the client's WebhookEvent type says: the schemas it is generated from hold every field sent.
    expect(heard.map(webhookEventViolation)).toEqual([null, null, null, null]);
    for (const event of heard) {
      if (event.type === 'webhook.test') throw new Error('no test was sent');
      expect(event.data.agr_reference).toBe(draft.agr_reference);
      if (event.type === 'participant.signed') expect(event.data.participant_role).toBe(event === heard[0] ? 'initiator' : 'party');
    }
    expect(() => verifyWebhook(endpoint.secret, deliveries[0]!.headers, `${deliveries[0]!.body} `)).toThrow();
    await alice.POST('/api/v1/webhooks/{webhook_id}/test', { params: { path: { webhook_id: endpoint.id } } });
    const ping = verifyWebhook(endpoint.secret, (await receiver.waitFor('/journey', 5))[4]!.headers, receiver.at('/journey')[4]!.body);
    expect([ping.type, webhookEventViolation(ping)]).toEqual(['webhook.test', null]);

    // The artifacts are ready: the sealed PDF, as bytes, with no option, through one 503 answered in front of the service.
    const document = `/api/v1/agreements/${draft.agr_reference}/document`;
    front.unavailableOnce('GET', document, 1);
    const downloadFrom = exchanges.length;
    const { data: pdf, response } = await integration.GET('/api/v1/agreements/{agr_id}/document', { params: { path: { agr_id: draft.agr_reference } } });
    expect(pdf).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(response.headers.get('etag')).toBe(`"sha256:${createHash('sha256').update(pdf).digest('hex')}"`);
    expect(exchanges.slice(downloadFrom).map((exchange) => [exchange.path, exchange.status])).toEqual([
      [document, 503],
      [document, 200],
    ]);
    // The same file as a stream, read as it arrives: the same bytes.
    const { data: stream } = await integration.stream('/api/v1/agreements/{agr_id}/document', { params: { path: { agr_id: draft.id } } });
    const chunks: Uint8Array[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(Buffer.from(pdf))).toBe(true);

    // A listing iterated page by page (one record a page): Alice's two records, newest first, then her sealed one alone.
    const { data: second } = await integration.POST('/api/v1/agreements', { body: { title: 'Rake loan', body: BODY.replace('ladder', 'rake'), on_chain_full_text: false, on_chain_include_verified_parties: false } });
    const listFrom = exchanges.length;
    const listed: string[] = [];
    for await (const record of alice.paginate('/api/v1/identity/agreements', { params: { query: { limit: 1 } } })) listed.push(record.id);
    expect(listed).toEqual([second.id, draft.id]);
    expect(exchanges.slice(listFrom).map((exchange) => exchange.path)).toEqual(['/api/v1/identity/agreements', '/api/v1/identity/agreements']);
    const sealedOnly: string[] = [];
    for await (const record of bob.paginate('/api/v1/identity/agreements', { params: { query: { status: 'sealed' } } })) sealedOnly.push(record.agr_reference);
    expect(sealedOnly).toEqual([draft.agr_reference]);

    // The key is revoked through the client too; from then on it is refused, with a typed error.
    expect((await alice.DELETE('/api/v1/api-keys/{key_id}', { params: { path: { key_id: created.id } } })).response.status).toBe(204);
    const refused = await integration.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: draft.id } } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'unauthenticated', requestId: expect.any(String) });
    expect((refused as InstanceType<typeof AuthenticationError>).requestId).toBe((refused as InstanceType<typeof AuthenticationError>).response.headers.get('x-request-id'));

    // What went on the wire: one credential per call at most (the key's calls the key, including the
    // ceremony's), and every write (POST, PATCH, DELETE) an Idempotency-Key of its own (a retry its
    // first attempt's); no read carried one.
    const calls = exchanges.filter((exchange) => exchange.path.startsWith('/api/v1/') && exchange.status !== 503);
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
    expect(again.data.id).toBe(first.data.id);
    const mine = (await carol.GET('/api/v1/identity/agreements')).data;
    expect(mine.agreements.filter((record) => record.id === first.data.id)).toHaveLength(1);
  });

  it('waits out a real 429 as long as its Retry-After says, sending the same Idempotency-Key again, and hands it over when told not to wait', async () => {
    const { RecordSigningError } = installed.module;
    const email = 'dave@example.com';
    const patient = client();
    await patient.requestSignInCode(email);
    // Within the same 3 seconds: a client that may not wait gets the 429 itself, thrown with the service's code and Retry-After.
    const refused = await client({ retries: 0 }).POST('/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RecordSigningError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number((refused as InstanceType<typeof RecordSigningError>).response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The raw methods answer it instead of throwing.
    const raw = await client({ retries: 0 }).raw.POST('/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    expect([raw.response.status, raw.error]).toEqual([429, expect.objectContaining({ error_code: 'rate_limited' })]);

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
