import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

const SECRET = 'whsec_parsing_0123456789abcdef';
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('REST request parsing: hostile bodies get clear answers', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ MESSENGER_WEBHOOK_SECRET: SECRET });
    token = await t.signIn('parsing@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  it('checks the webhook secret before reading the body: a 5,000-deep array from an outsider answers 403', async () => {
    const response = await t.request('POST', '/api/v1/inbound/messenger', { body: deepArray(5000) });
    expect(response.status).toBe(403);
    expect(response.body.error_code).toBe('forbidden');
  });

  it('bounds JSON depth before any recursion: a 5,000-deep array with the right secret answers 400', async () => {
    const response = await t.request('POST', '/api/v1/inbound/messenger', {
      body: `{"update_id":1,"message":${deepArray(5000)}}`,
      headers: { 'X-Telegram-Bot-Api-Secret-Token': SECRET },
    });
    expect(response.status).toBe(400);
    expect(response.body.error_code).toBe('malformed_request');
  });

  it('bounds depth on every route, anonymous ones included', async () => {
    const response = await t.request('POST', '/api/v1/verification/request-otp', { body: `{"email":${deepArray(5000)}}` });
    expect(response.status).toBe(400);
  });

  it('refuses duplicate JSON keys with 400 instead of taking the last value', async () => {
    const body = '{"name":"ci","scopes":["retrieve"],"scopes":["create","retrieve","verify","amend","cancel"]}';
    const response = await t.request('POST', '/api/v1/api-keys', { token, body });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: 'Duplicate key in a JSON object', error_code: 'malformed_request' });
    const nested = await t.request('POST', '/api/v1/verification/request-otp', { body: '{"email":"a@example.com","purpose":"authenticate","x":{"a":1,"a":2}}' });
    expect(nested.status).toBe(400);
  });

  it('keeps equal keys in different objects and escaped keys apart', async () => {
    const response = await t.request('POST', '/api/v1/api-keys', { token, body: '{"name":"ci","scopes":["retrieve"],"x":{"name":1},"n\\u0061me2":2}' });
    expect(response.status).toBe(201);
  });

  it('answers a malformed percent-escape in the path with 400 malformed_request, with or without credentials', async () => {
    for (const path of ['/api/v1/public/verify/%E0%A4%A', '/api/v1/public/agreements/%E0%A4%A', '/api/v1/agreements/%E0%A4%A']) {
      for (const headers of [{}, { authorization: `Bearer ${token}` }]) {
        const response = await fetch(t.url + path, { headers });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({ detail: 'Malformed percent-escape in the URL path', error_code: 'malformed_request' });
      }
    }
    expect(t.logs()).not.toContain('URI malformed');
  });

  it('ignores unknown body properties named like Object.prototype members', async () => {
    const body = JSON.parse(`{"toString": "x", "constructor": {"a": 1}, "__proto__": {"polluted": true}, "hasOwnProperty": 1, ${JSON.stringify(agreementBody()).slice(1)}`);
    const created = await t.request('POST', '/api/v1/agreements', { token, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a text/plain body with 415', async () => {
    const response = await t.request('POST', '/api/v1/verification/request-otp', {
      body: '{"email":"a@example.com","purpose":"authenticate"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.body.error_code).toBe('unsupported_media_type');
  });

  it('still authenticates first: an anonymous text/plain body to a protected route answers 401', async () => {
    const response = await t.request('POST', '/api/v1/agreements', { body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(401);
  });

  it('answers a method a route does not have with 405 and Allow, and HEAD wherever GET is', async () => {
    const refused = await t.request('DELETE', '/api/v1/api-keys', { token });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(refused.body.error_code).toBe('method_not_allowed');
    const templated = await t.request('PUT', '/api/v1/agreements/00000000-0000-4000-8000-000000000000', { token, body: {} });
    expect(templated.status).toBe(405);
    expect(templated.headers.get('allow')).toBe('GET, HEAD, PATCH');

    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() });
    const get = await fetch(`${t.url}/api/v1/agreements/${created.body.id}`, { headers: { authorization: `Bearer ${token}` } });
    const head = await fetch(`${t.url}/api/v1/agreements/${created.body.id}`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
    expect((await fetch(`${t.url}/health`, { method: 'HEAD' })).status).toBe(200);
  });

  it('marks token and key responses Cache-Control: no-store', async () => {
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { name: 'cache', scopes: ['retrieve'] } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'cache@example.com', purpose: 'authenticate' } });
    const code = await t.smtp.codeFor('cache@example.com', 0);
    const verified = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: requested.body.verification_event_id, code } });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    ['the REST API', '/api/v1/identity/agreements'],
    ['an unknown route', '/api/v1/nowhere'],
    ['the health route', '/health'],
    ['GraphQL', '/graphql?query=%7B__typename%7D'],
  ])('sends security headers on %s', async (_name, path) => {
    const response = await fetch(t.url + path, { headers: { 'apollo-require-preflight': 'true' } });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('strict-transport-security')).toBeTruthy();
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });
});
