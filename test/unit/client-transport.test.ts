import { createRecordSigningClient, RecordSigningError, type Fetch } from '../../packages/client/src/index.js';
import { retryAfterMs } from '../../packages/client/src/transport.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A service stand-in: answers in turn (the last repeats) and keeps every request as sent. */
function service(...answers: (() => Response)[]) {
  const sent: Request[] = [];
  const fetch: Fetch = async (request) => {
    sent.push(request);
    return (answers[sent.length - 1] ?? answers.at(-1)!)();
  };
  return { sent, fetch };
}

const draft = { body: 'We share the garden equally and take turns watering it every week.', on_chain_full_text: false, on_chain_include_verified_parties: false };

describe('The TypeScript client, on the wire', () => {
  it('sends the contract path with its parameters and the API key; after sign-in, the bearer token instead', async () => {
    const { sent, fetch } = service(
      () => json(200, { agreements: [] }),
      () => json(200, { verified: true, access_token: 'rss_tok', token_type: 'bearer', expires_in: 3600, identity_id: 'f3b2a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5b' }),
    );
    const client = createRecordSigningClient({ baseUrl: 'http://service.test/', apiKey: 'rss_key_1', fetch });
    await client.GET('/api/v1/identity/agreements', { params: { query: { status: 'sealed', limit: 5 } } });
    expect(sent[0]!.url).toBe('http://service.test/api/v1/identity/agreements?status=sealed&limit=5');
    expect(sent[0]!.headers.get('x-api-key')).toBe('rss_key_1');

    await client.signIn('7b0e2f43-1c5d-4e6f-8a9b-0c1d2e3f4a5b', '123456');
    expect(await sent[1]!.json()).toEqual({ verification_event_id: '7b0e2f43-1c5d-4e6f-8a9b-0c1d2e3f4a5b', code: '123456' });
    await client.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-7' } } });
    expect(sent[2]!.url).toBe('http://service.test/api/v1/agreements/AGR-7');
    expect(sent[2]!.headers.get('authorization')).toBe('Bearer rss_tok');
    expect(sent[2]!.headers.has('x-api-key')).toBe(false);
  });

  it('puts a new Idempotency-Key on every write, keeps the one given, and puts none on a read', async () => {
    const { sent, fetch } = service(() => json(200, {}));
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', token: 'rss_tok', fetch });
    await client.POST('/api/v1/agreements', { body: draft });
    await client.POST('/api/v1/agreements', { body: draft });
    await client.PATCH('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-7' } }, body: { title: 'Garden' } });
    await client.DELETE('/api/v1/api-keys/{key_id}', { params: { path: { key_id: 'k1' } } });
    await client.POST('/api/v1/agreements', { body: draft, params: { header: { 'Idempotency-Key': 'given-key-0123456789' } } });
    await client.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-7' } } });
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys.slice(0, 4)).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID), expect.stringMatching(UUID), expect.stringMatching(UUID)]);
    expect(new Set(keys.slice(0, 4)).size).toBe(4);
    expect(keys.slice(4)).toEqual(['given-key-0123456789', null]);
  });

  it('waits out a 429 per Retry-After, at most `retries` times, sending the same Idempotency-Key again', async () => {
    const limited = () => json(429, { detail: 'Too many code requests', error_code: 'rate_limited', retry_after_seconds: 0 }, { 'retry-after': '0' });
    const { sent, fetch } = service(limited, limited, () => json(201, { id: 'r1' }));
    const patient = createRecordSigningClient({ baseUrl: 'http://service.test', token: 'rss_tok', fetch });
    const created = await patient.POST('/api/v1/agreements', { body: draft });
    expect(created.response.status).toBe(201);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
    await expect(Promise.all(sent.map((request) => request.json()))).resolves.toEqual([draft, draft, draft]);

    const bounded = service(limited);
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', fetch: bounded.fetch, rateLimit: { retries: 2 } });
    expect((await client.GET('/health')).response.status).toBe(429);
    expect(bounded.sent).toHaveLength(3);
  });

  it('hands a 429 over at once when its Retry-After is missing or longer than it may wait', async () => {
    const long = service(() => json(429, { detail: 'later', error_code: 'rate_limited' }, { 'retry-after': '3600' }));
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', fetch: long.fetch, rateLimit: { maxWaitSeconds: 60 } });
    expect((await client.GET('/health')).response.status).toBe(429);
    const silent = service(() => json(429, { detail: 'later', error_code: 'rate_limited' }));
    expect((await createRecordSigningClient({ baseUrl: 'http://service.test', fetch: silent.fetch }).GET('/health')).response.status).toBe(429);
    expect([long.sent.length, silent.sent.length]).toEqual([1, 1]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Thu, 26 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Thu, 26 Nov 2026 11:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  it('a sign-in helper that gets an error answer throws the status and error_code', async () => {
    const { fetch } = service(() => json(404, { detail: 'Verification event not found', error_code: 'not_found' }));
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', fetch });
    const failure = await client.signIn('7b0e2f43-1c5d-4e6f-8a9b-0c1d2e3f4a5b', '123456').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RecordSigningError);
    expect(failure).toMatchObject({ status: 404, errorCode: 'not_found', message: '404 not_found: Verification event not found' });
  });
});
