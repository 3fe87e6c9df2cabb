import WebSocket from 'ws';
import { startBrowserApp } from '../support/browser.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { authorizationRequest, CookieJar, discover, follow, registerClient } from '../support/oauth.js';

/**
 * The routes an anonymous caller reaches answer with the client's quota per network address
 * (draft-ietf-httpapi-ratelimit-headers): RateLimit-Policy (q requests per w seconds) and RateLimit
 * (r left, all back in t seconds), on successes and refusals alike. Nothing else carries them.
 */
describe('RateLimit header fields', () => {
  let t: TestApp & { origin: string };

  beforeAll(async () => {
    // At its public origin (OAuth discovery checks it); no browser is started.
    t = await startBrowserApp({ OTP_REQUESTS_PER_WINDOW: '100', CLIENT_CODE_CALLS_PER_HOUR: '4', CLIENT_VERIFICATIONS_PER_MINUTE: '3', OAUTH_REGISTRATIONS_PER_HOUR: '2' });
  });
  afterAll(async () => {
    await t.stop();
  });

  // Each test is its own client: the service trusts X-Forwarded-For from loopback (trust proxy).
  const from = (client: string) => ({ 'x-forwarded-for': client });
  /** Sends `count` `{ __typename }` operations over one graphql-ws socket; the first frame answering each, in order. */
  const graphqlWsOperations = async (url: string, count: number): Promise<{ type: string; payload?: any }[]> => {
    const socket = new WebSocket(url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    const answers = new Map<string, { type: string; payload?: any }>();
    await new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
      socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as { type: string; id?: string; payload?: unknown };
        if (frame.type === 'connection_ack') {
          for (let i = 0; i < count; i += 1) socket.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: '{ __typename }' } }));
        } else if (frame.id !== undefined && !answers.has(frame.id) && frame.type !== 'complete') {
          answers.set(frame.id, frame);
          if (answers.size === count) resolve();
        }
      });
    });
    socket.close();
    return Array.from({ length: count }, (_, i) => answers.get(String(i))!);
  };

  const left = (headers: Headers) => {
    const match = /^"(\w+)";r=(\d+);t=(\d+)$/.exec(headers.get('ratelimit') ?? '');
    return match ? { policy: match[1], remaining: Number(match[2]), reset: Number(match[3]) } : null;
  };

  it('counts down the code requests of one client, and a refusal says none is left', async () => {
    const request = (email: string) =>
      t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' }, headers: from('198.51.100.1') });
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await request(`counted${i}@example.com`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe('"request_otp";q=4;w=3600');
    expect(answers.map((answer) => left(answer.headers)?.remaining)).toEqual([3, 2, 1, 0, 0]);
    for (const answer of answers) {
      // All four back once they are a whole window old: between one and two windows from now.
      expect(left(answer.headers)!.reset).toBeGreaterThan(0);
      expect(left(answer.headers)!.reset).toBeLessThanOrEqual(7200);
    }
    expect(Number(answers[4]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(answers[4]!.headers.get('retry-after'))).toBeLessThanOrEqual(left(answers[4]!.headers)!.reset);
    // Another client has its own quota.
    const other = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'counted0@example.com', purpose: 'authenticate' }, headers: from('198.51.100.2') });
    expect(other.status).toBe(200);
    expect(left(other.headers)).toMatchObject({ policy: 'request_otp', remaining: 3 });
  });

  it('reports the public verification quota, for a reference that matches nothing too', async () => {
    const first = await t.request('GET', '/api/v1/public/verify/AGR-0000-0000', { headers: from('198.51.100.3') });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"public_verify";q=3;w=60');
    expect(left(first.headers)).toMatchObject({ policy: 'public_verify', remaining: 2 });
    expect(left(first.headers)!.reset).toBeLessThanOrEqual(120);
    const second = await t.request('POST', '/api/v1/public/verify/AGR-0000-0000', { body: { content_hash: `sha256:${'0'.repeat(64)}` }, headers: from('198.51.100.3') });
    expect(second.status).toBe(200);
    expect(left(second.headers)).toMatchObject({ policy: 'public_verify', remaining: 1 });
    await t.request('GET', '/api/v1/public/verify/AGR-0000-0000', { headers: from('198.51.100.3') });
    const refused = await t.request('GET', '/api/v1/public/verify/AGR-0000-0000', { headers: from('198.51.100.3') });
    expect(refused.status).toBe(429);
    expect(left(refused.headers)).toMatchObject({ policy: 'public_verify', remaining: 0 });
  });

  it('answers the same fields over /graphql', async () => {
    const response = await t.request('POST', '/graphql', {
      body: { query: 'mutation($input: RequestOtpInput!) { requestOtp(input: $input) { verificationEventId } }', variables: { input: { email: 'graph@example.com', purpose: 'authenticate' } } },
      headers: from('198.51.100.4'),
    });
    expect(response.status).toBe(200);
    expect(response.body.data.requestOtp.verificationEventId).toEqual(expect.any(String));
    // Every /graphql operation counts against the client's GraphQL budget too (per instance, per minute).
    expect(response.headers.get('ratelimit-policy')).toBe('"graphql";q=1000000;w=60, "request_otp";q=4;w=3600');
    expect(response.headers.get('ratelimit')).toMatch(/^"graphql";r=999999;t=\d+, "request_otp";r=3;t=\d+$/);
  });

  it('refuses GraphQL operations past the client budget with 429 and Retry-After, over HTTP and graphql-ws', async () => {
    const limited = await startTestApp({ GRAPHQL_OPERATIONS_PER_MINUTE: '5' });
    try {
      const query = { query: '{ __typename }' };
      const answers = [];
      for (let i = 0; i < 6; i += 1) answers.push(await limited.request('POST', '/graphql', { body: query, headers: from('198.51.100.7') }));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(left(answers[4]!.headers)).toMatchObject({ policy: 'graphql', remaining: 0 });
      expect(Number(answers[5]!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answers[5]!.body.errors[0].extensions).toMatchObject({ code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
      // Another address has its own budget.
      expect((await limited.request('POST', '/graphql', { body: query, headers: from('198.51.100.8') })).status).toBe(200);
      // graphql-ws from 127.0.0.1: the sixth operation is refused, the socket stays open.
      const feed = await graphqlWsOperations(limited.url, 6);
      expect(feed.slice(0, 5).every((frame) => frame.type === 'next')).toBe(true);
      expect(feed[5]).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'rate_limited' } }] });
    } finally {
      await limited.stop();
    }
  });

  it('answers the registration quota on dynamic client registration, and on its refusal', async () => {
    const register = () =>
      t.request('POST', '/oauth/register', {
        body: { client_name: 'Quota probe', redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
        headers: from('198.51.100.5'),
      });
    const answers = [await register(), await register(), await register()];
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 429]);
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe('"oauth_register";q=2;w=3600');
    expect(answers.map((answer) => left(answer.headers)?.remaining)).toEqual([1, 0, 0]);
    const refused = answers[2]!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(left(refused.headers)!.reset);
    // The refusal in RFC 7591's error shape.
    expect(refused.body).toMatchObject({ error: expect.any(String) });
  });

  it('answers the code request quota on the consent page that mails a code', async () => {
    const discovered = await discover(t.origin);
    const client = await registerClient(discovered.as, { redirect_uris: ['http://127.0.0.1:9/callback'] });
    const request = await authorizationRequest(discovered.as, client, discovered.resource);
    const jar = new CookieJar();
    const opened = await follow(jar, await jar.fetch(request.url), t.origin);
    expect(opened.response.status).toBe(200);
    expect(opened.response.headers.get('ratelimit')).toBeNull();
    await opened.response.text();
    // The page is served to this test from loopback: its code requests count against 127.0.0.1.
    const codePage = await jar.post(`${opened.url}/email`, { email: 'consent-quota@example.com' });
    expect(codePage.status).toBe(200);
    await codePage.text();
    expect(codePage.headers.get('ratelimit-policy')).toBe('"request_otp";q=4;w=3600');
    expect(left(codePage.headers)?.policy).toBe('request_otp');
  });

  it('documents them in the served OpenAPI document on the routes that count, and only there', async () => {
    const { body: document } = await t.request('GET', '/api/openapi.json');
    const responses = (path: string, method: string) => document.paths[path][method].responses;
    for (const [path, method, policy] of [
      ['/api/v1/verification/request-otp', 'post', 'request_otp'],
      ['/api/v1/verification/verify-otp', 'post', 'verify_otp'],
      ['/api/v1/public/verify/{agr_reference}', 'get', 'public_verify'],
      ['/api/v1/public/verify/{agr_reference}', 'post', 'public_verify'],
    ] as const) {
      for (const status of ['200', '429']) {
        expect(Object.keys(responses(path, method)[status].headers)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
      }
      expect(responses(path, method)['200'].headers['RateLimit-Policy'].description).toContain(`\`${policy}\``);
    }
    expect(responses('/api/v1/identity/contact-points', 'get')['200'].headers?.RateLimit).toBeUndefined();
  });

  it('leaves them off answers that counted nothing against the client', async () => {
    const token = await t.signIn('quota-reader@example.com');
    const identity = await t.request('GET', '/api/v1/identity/contact-points', { token, headers: from('198.51.100.6') });
    expect(identity.status).toBe(200);
    expect(identity.headers.get('ratelimit')).toBeNull();
    expect(identity.headers.get('ratelimit-policy')).toBeNull();
    const health = await t.request('GET', '/health');
    expect(health.headers.get('ratelimit')).toBeNull();
  });
});
