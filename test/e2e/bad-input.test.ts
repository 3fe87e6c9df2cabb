import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

/** Every operation of the contract, with its path parameters filled in plausibly. */
function operations(recordId: string) {
  const document = buildOpenApiDocument();
  const fill = (path: string) =>
    path
      .replace('{agr_id}', recordId)
      .replace('{id_or_ref}', recordId)
      .replace('{agr_reference}', 'AGR-0000-0000')
      .replace(/\{(party_id|counter_id|key_id)\}/, '00000000-0000-4000-8000-000000000000')
      .replace('{method_type}', 'email_otp')
      .replace('{token}', 'x'.repeat(24))
      .replace(/\{[a-z]+_id\}/g, '00000000-0000-4000-8000-000000000000');
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, { requestBody?: unknown; operationId?: string }>)
      .filter(([method]) => ['get', 'post', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path: fill(path), template: path, hasBody: op.requestBody !== undefined, id: op.operationId ?? '' })),
  );
}

const GARBAGE: unknown[] = [null, [], 'text', 42, true, { a: { b: { c: [1, { d: null }] } } }, { body: 7, scopes: 'all', code: [], email: {} }];

describe('Bad input never breaks the service', () => {
  let t: TestApp;
  let token: string;
  let recordId: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '1000' });
    token = await t.signIn('fuzz@example.com');
    recordId = (await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() })).body.id;
  });
  afterAll(async () => {
    await t.stop();
  });

  it('answers every operation with a clear client error (never 500) for malformed or mistyped bodies', async () => {
    const seen: string[] = [];
    for (const op of operations(recordId).filter((o) => o.hasBody)) {
      for (const body of GARBAGE) {
        // A sign-out that accepts the body ends the session it was sent with: it gets one of its own.
        const response = await t.request(op.method, op.path, { token: op.id === 'signOut' ? await t.signIn('fuzz-sign-out@example.com') : token, body: JSON.stringify(body) });
        seen.push(`${op.id}:${response.status}`);
        // 501 marks a contract route whose capability has not landed; anything else 5xx is a bug.
        expect({ op: op.id, body, serverError: response.status >= 500 && response.status !== 501 }).toEqual({ op: op.id, body, serverError: false });
        if (response.status === 422) expect(Array.isArray(response.body.detail)).toBe(true);
        else if (response.status >= 400 && response.status !== 501) expect(response.body).toMatchObject({ detail: expect.any(String), error_code: expect.any(String) });
      }
      const broken = await t.request(op.method, op.path, { token, body: '{"unterminated": ' });
      // The webhook checks its secret (none configured here) before it reads a body.
      const expected = op.id === 'receiveMessengerUpdate' ? { status: 403, code: 'forbidden' } : { status: 400, code: 'malformed_request' };
      expect({ op: op.id, status: broken.status, code: broken.body.error_code }).toEqual({ op: op.id, ...expected });
    }
    expect(seen.length).toBeGreaterThan(100);
  });

  it('answers odd path and query values with 4xx, never 500', async () => {
    for (const path of [
      '/api/v1/agreements/%00',
      '/api/v1/agreements/' + 'A'.repeat(5000),
      '/api/v1/agreements/AGR-ZZZZ-ZZZZ',
      "/api/v1/agreements/1' or '1'='1",
      '/api/v1/identity/agreements?limit=abc&offset=-0.5',
      '/api/v1/identity/agreements?status=sealed&status=draft',
      '/api/v1/api-keys/not-a-uuid',
    ]) {
      const response = await t.request(path.includes('api-keys') ? 'DELETE' : 'GET', path, { token });
      expect({ path, status: response.status < 500 }).toEqual({ path, status: true });
    }
  });

  it('declares every status it answers: a fuzz pass over every operation finds no undeclared answer, no schema violation, no requestBody', async () => {
    // t.request checks each answer against the served contract (status declared, body valid) and throws on a violation.
    const violations: string[] = [];
    const locations: string[] = [];
    const attempt = async (what: string, call: () => Promise<{ status: number; body: any }>) => {
      try {
        const answer = await call();
        for (const issue of Array.isArray(answer.body?.detail) ? (answer.body.detail as { loc: unknown[] }[]) : []) locations.push(JSON.stringify(issue.loc));
        return answer;
      } catch (error) {
        violations.push(`${what}: ${(error as Error).message}`);
        return null;
      }
    };
    const long = 'A'.repeat(300);
    for (const op of operations(recordId)) {
      const session = op.id === 'signOut' ? () => t.signIn('fuzz-sign-out@example.com') : async () => token;
      await attempt(`${op.id} unknown query parameter`, async () => t.request(op.method, `${op.path}?page=2&zz_unknown=1`, { token: await session(), body: op.hasBody ? '{}' : undefined }));
      const withLongParameter = op.template.replace(/\{[^}]+\}/g, long);
      if (withLongParameter !== op.template) await attempt(`${op.id} long path parameter`, async () => t.request(op.method, withLongParameter, { token: await session(), body: op.hasBody ? '{}' : undefined }));
      if (op.method === 'GET') continue;
      await attempt(`${op.id} wrong content type`, async () => t.request(op.method, op.path, { token: await session(), body: 'plain words', headers: { 'content-type': 'text/plain' } }));
      await attempt(`${op.id} oversized body`, async () => t.request(op.method, op.path, { token: await session(), body: JSON.stringify({ filler: 'x'.repeat(300 * 1024) }) }));
      if (op.hasBody) await attempt(`${op.id} empty body`, async () => t.request(op.method, op.path, { token: await session() }));
    }
    expect(violations).toEqual([]);
    expect(locations.filter((loc) => loc.includes('requestBody'))).toEqual([]);
  });
});
