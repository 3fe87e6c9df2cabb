import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { ManualClock } from '../support/clock.js';

const SCOPES = ['create', 'retrieve', 'verify', 'amend', 'cancel'] as const;

describe('API keys', () => {
  let t: TestApp;
  const clock = new ManualClock();
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    token = await t.signIn('keys@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  async function createKey(scopes: string[], extra: Record<string, unknown> = {}) {
    const response = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes, ...extra } });
    expect(response.status).toBe(201);
    return response.body as { id: string; key: string; key_prefix: string };
  }

  it('shows the full key once, lists it without the secret, and authenticates with it', async () => {
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve', 'create'], name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^rss_key_/),
      key_prefix: expect.any(String),
      name: 'ci',
      scopes: ['retrieve', 'create'],
      last_used_at: null,
      expires_at: null,
      created_at: expect.any(String),
    });
    expect(created.body.key.startsWith(created.body.key_prefix)).toBe(true);

    const listed = await t.request('GET', '/api/v1/api-keys', { token });
    expect(listed.status).toBe(200);
    const entry = listed.body.api_keys.find((k: { id: string }) => k.id === created.body.id);
    expect(entry).toMatchObject({ name: 'ci', scopes: ['retrieve', 'create'] });
    expect(entry).not.toHaveProperty('key');
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    const used = await t.request('GET', '/api/v1/identity/agreements', { apiKey: created.body.key });
    expect(used.status).toBe(200);
    const afterUse = await t.request('GET', '/api/v1/api-keys', { token });
    expect(afterUse.body.api_keys.find((k: { id: string }) => k.id === created.body.id).last_used_at).not.toBeNull();
  });

  it('revokes a key immediately', async () => {
    const { id, key } = await createKey(['retrieve']);
    expect((await t.request('GET', '/api/v1/identity/agreements', { apiKey: key })).status).toBe(200);
    const revoked = await t.request('DELETE', `/api/v1/api-keys/${id}`, { token });
    expect(revoked.status).toBe(204);
    const after = await t.request('GET', '/api/v1/identity/agreements', { apiKey: key });
    expect(after.status).toBe(401);
    const listed = await t.request('GET', '/api/v1/api-keys', { token });
    expect(listed.body.api_keys.map((k: { id: string }) => k.id)).not.toContain(id);
    expect((await t.request('DELETE', `/api/v1/api-keys/${id}`, { token })).status).toBe(404);
  });

  it("cannot revoke another identity's key", async () => {
    const { id, key } = await createKey(['retrieve']);
    const stranger = await t.signIn('stranger@example.com');
    expect((await t.request('DELETE', `/api/v1/api-keys/${id}`, { token: stranger })).status).toBe(404);
    expect((await t.request('GET', '/api/v1/identity/agreements', { apiKey: key })).status).toBe(200);
  });

  it('stops accepting a key once it expires', async () => {
    const expiresAt = new Date(clock.now().getTime() + 3_600_000).toISOString();
    const { key } = await createKey(['retrieve'], { expires_at: expiresAt });
    expect((await t.request('GET', '/api/v1/identity/agreements', { apiKey: key })).status).toBe(200);
    clock.advance(2 * 3_600_000);
    expect((await t.request('GET', '/api/v1/identity/agreements', { apiKey: key })).status).toBe(401);
    // A fresh bearer token for the rest of the file: the old one expired with the clock.
    token = await t.signIn('keys@example.com');
    // Listed until revoked (the contract lists non-revoked keys), with its expires_at.
    const listed = await t.request('GET', '/api/v1/api-keys', { token });
    const expired = listed.body.api_keys.find((k: { key_prefix: string }) => key.startsWith(k.key_prefix));
    expect(new Date(expired.expires_at).getTime()).toBe(new Date(expiresAt).getTime());
    expect(new Date(expired.expires_at).getTime()).toBeLessThan(clock.now().getTime());
  });

  it.each([
    [{ scopes: [] }, ['body', 'scopes']],
    [{ scopes: ['offline_access'] }, ['body', 'scopes', 0]],
    [{ scopes: ['admin'] }, ['body', 'scopes', 0]],
    [{ scopes: ['retrieve', 'retrieve'] }, ['body', 'scopes']],
    [{ scopes: ['retrieve'], expires_at: '2000-01-01T00:00:00Z' }, ['body', 'expires_at']],
    [{ name: 'no scopes' }, ['body', 'scopes']],
  ])('refuses %j with 422 naming the field', async (body, loc) => {
    const response = await t.request('POST', '/api/v1/api-keys', { token, body });
    expect(response.status).toBe(422);
    expect(response.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
  });

  it('keeps bearer-only routes closed to API keys', async () => {
    const { id, key } = await createKey([...SCOPES]);
    for (const [method, path, body] of [
      ['GET', '/api/v1/api-keys', undefined],
      ['POST', '/api/v1/api-keys', { scopes: ['retrieve'] }],
      ['DELETE', `/api/v1/api-keys/${id}`, undefined],
      ['GET', '/api/v1/identity/contact-points', undefined],
      ['POST', '/api/v1/identity/link', { verification_event_id: '00000000-0000-4000-8000-000000000000', code: '123456' }],
    ] as const) {
      const response = await t.request(method, path, { apiKey: key, body });
      expect({ method, path, status: response.status, code: response.body.error_code }).toEqual({
        method,
        path,
        status: 403,
        code: 'bearer_required',
      });
    }
  });

  describe('scopes are exact and not hierarchical', () => {
    const routes = [
      { scope: 'create', call: (key: string) => t.request('POST', '/api/v1/agreements', { apiKey: key, body: agreementBody() }), ok: 201 },
      {
        scope: 'create',
        call: (key: string) => t.request('POST', '/api/v1/declarations', { apiKey: key, body: agreementBody({ parties: undefined }) }),
        ok: 201,
      },
      { scope: 'retrieve', call: (key: string) => t.request('GET', '/api/v1/identity/agreements', { apiKey: key }), ok: 200 },
    ];
    let draftId: string;

    beforeAll(async () => {
      const draft = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() });
      draftId = draft.body.id;
    });

    it.each(SCOPES.map((scope) => [scope]))('a key with only %s reaches exactly its routes', async (scope) => {
      const { key } = await createKey([scope]);
      for (const route of routes) {
        const response = await route.call(key);
        if (route.scope === scope) expect(response.status).toBe(route.ok);
        else {
          expect(response.status).toBe(403);
          expect(response.body).toMatchObject({ error_code: 'missing_scope', required_scopes: [route.scope] });
        }
      }
      const read = await t.request('GET', `/api/v1/agreements/${draftId}`, { apiKey: key });
      expect(read.status).toBe(scope === 'retrieve' ? 200 : 403);
      const patch = await t.request('PATCH', `/api/v1/agreements/${draftId}`, { apiKey: key, body: { title: `edited by ${scope}` } });
      expect(patch.status).toBe(scope === 'create' ? 200 : 403);
    });

    it('a bearer session holds every record scope', async () => {
      for (const route of routes.slice(2)) expect((await route.call('')).status).toBe(401);
      expect((await t.request('GET', `/api/v1/agreements/${draftId}`, { token })).status).toBe(200);
    });
  });
});
