import { AuthenticationError, createRecordSigningClient, RecordSigningConnectionError, RecordSigningError, TokenExpiredError, type Fetch } from '../../packages/client/src/index.js';
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
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', fetch: bounded.fetch, retry: { retries: 2 } });
    expect((await client.raw.GET('/health')).response.status).toBe(429);
    expect(bounded.sent).toHaveLength(3);
  });

  it('sends a 503 again after its Retry-After, or after a backoff when it names none, with the same Idempotency-Key', async () => {
    const unavailable = (headers: Record<string, string>) => () => json(503, { detail: 'The database cannot be reached', error_code: 'unavailable' }, headers);
    const { sent, fetch } = service(unavailable({ 'retry-after': '0' }), unavailable({}), () => json(201, { id: 'r1' }));
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', token: 'rss_tok', fetch });
    expect((await client.POST('/api/v1/agreements', { body: draft })).data).toEqual({ id: 'r1' });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('sends a call again after a network failure, and after the last attempt throws a RecordSigningConnectionError', async () => {
    let calls = 0;
    const flaky: Fetch = async () => {
      calls++;
      if (calls === 1) throw new TypeError('fetch failed');
      return json(200, { status: 'ok' });
    };
    expect((await createRecordSigningClient({ baseUrl: 'http://service.test', fetch: flaky }).GET('/health')).data).toEqual({ status: 'ok' });
    expect(calls).toBe(2);

    const down: Fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const failure = await createRecordSigningClient({ baseUrl: 'http://service.test', fetch: down, retry: { retries: 1 } })
      .GET('/health')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RecordSigningConnectionError);
    expect(failure).toMatchObject({ attempts: 2, method: 'GET', url: 'http://service.test/health', cause: expect.any(TypeError) });
  });

  it('hands a 429 over at once when its Retry-After is missing or longer than it may wait', async () => {
    const long = service(() => json(429, { detail: 'later', error_code: 'rate_limited' }, { 'retry-after': '3600' }));
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', fetch: long.fetch, retry: { maxWaitSeconds: 60 } });
    expect((await client.raw.GET('/health')).response.status).toBe(429);
    const silent = service(() => json(429, { detail: 'later', error_code: 'rate_limited' }));
    expect((await createRecordSigningClient({ baseUrl: 'http://service.test', fetch: silent.fetch }).raw.GET('/health')).response.status).toBe(429);
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

  it('throws an error answer as a RecordSigningError with its status, error_code, request id and response', async () => {
    const { fetch } = service(() => json(404, { detail: 'Verification event not found', error_code: 'not_found' }, { 'x-request-id': 'req-7' }));
    const client = createRecordSigningClient({ baseUrl: 'http://service.test', fetch });
    const failure = await client.signIn('7b0e2f43-1c5d-4e6f-8a9b-0c1d2e3f4a5b', '123456').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RecordSigningError);
    expect(failure).toMatchObject({ status: 404, code: 'not_found', requestId: 'req-7', message: '404 not_found: Verification event not found' });
    expect((failure as RecordSigningError).response.status).toBe(404);
    const raw = await client.raw.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-7' } } });
    expect([raw.response.status, raw.error?.detail]).toEqual([404, 'Verification event not found']);
  });

  it('throws a 401 after the token from signIn has expired as a TokenExpiredError, and one before as an AuthenticationError', async () => {
    const refused = () => json(401, { detail: 'The bearer token is invalid or has expired', error_code: 'unauthenticated' });
    const verified = (expiresIn: number) => () => json(200, { verified: true, access_token: 'rss_tok', token_type: 'bearer', expires_in: expiresIn, identity_id: 'f3b2a3c4-5d6e-4f70-8a9b-0c1d2e3f4a5b' });
    const read = (client: ReturnType<typeof createRecordSigningClient>) => client.GET('/api/v1/agreements/{agr_id}', { params: { path: { agr_id: 'AGR-7' } } }).catch((error: unknown) => error);
    const expired = createRecordSigningClient({ baseUrl: 'http://service.test', fetch: service(verified(0), refused).fetch });
    await expired.signIn('7b0e2f43-1c5d-4e6f-8a9b-0c1d2e3f4a5b', '123456');
    expect(await read(expired)).toBeInstanceOf(TokenExpiredError);
    const current = createRecordSigningClient({ baseUrl: 'http://service.test', fetch: service(verified(3600), refused).fetch });
    await current.signIn('7b0e2f43-1c5d-4e6f-8a9b-0c1d2e3f4a5b', '123456');
    const failure = await read(current);
    expect(failure).toBeInstanceOf(AuthenticationError);
    expect(failure).not.toBeInstanceOf(TokenExpiredError);
  });
});
