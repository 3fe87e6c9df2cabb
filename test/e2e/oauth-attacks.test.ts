import * as oauth from 'oauth4webapi';
import { startBrowserApp } from '../support/browser.js';
import type { TestApp } from '../support/harness.js';
import { ManualClock } from '../support/clock.js';
import {
  authorizationRequest,
  consentOverHttp,
  CookieJar,
  discover,
  exchangeCode,
  follow,
  hiddenField,
  insecure,
  refresh,
  registerClient,
  tokenError,
  tokens,
  type AuthorizationRequest,
  type Discovered,
} from '../support/oauth.js';
import { catalog } from '../../src/graph/catalog/index.js';
import { runEntry } from '../../src/graph/catalog/entry.js';
import { GraphOperationError } from '../../src/graph/executor.js';
import type { Principal } from '../../src/domain/identity/principal.js';

type App = TestApp & { origin: string };

const REDIRECT = 'https://assistant.example/oauth/callback';

describe('Hosted assistant connector: each attack is refused and nothing is issued', () => {
  let t: App;
  let d: Discovered;
  let client: oauth.Client;
  const clock = new ManualClock();

  const grantOf = async (accessToken: string) => {
    const outcome = await t.app.services.connectorAuth(`Bearer ${accessToken}`);
    if (!outcome.ok || outcome.principal.kind !== 'oauth') throw new Error('not a connector token');
    return outcome.principal.grantId;
  };
  const tokensStored = async (where: string, params: unknown[]) =>
    Number((await t.app.orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from oauth_payloads where model in ('AccessToken', 'RefreshToken') and ${where}`, params))[0]!.n);
  const alive = async (accessToken: string) => (await t.app.services.connectorAuth(`Bearer ${accessToken}`)).ok;
  /** Consent, then the code in the callback, not yet exchanged. */
  const consented = async (params: Record<string, string | undefined> = {}, who = client) => {
    const request = await authorizationRequest(d.as, who, d.resource, params);
    return { request, callback: await consentOverHttp(t, request, 'mallory-target@example.com') };
  };
  const connected = async (params: Record<string, string | undefined> = {}) => {
    const { request, callback } = await consented(params);
    return tokens(d, client, await exchangeCode(d, client, request, callback));
  };
  /** Opens an authorization URL: where the server sends the browser (no consent page means refused). */
  const open = async (request: AuthorizationRequest) => {
    const jar = new CookieJar();
    const first = await jar.fetch(request.url);
    return { status: first.status, location: first.headers.get('location'), body: first.status === 200 || first.status === 400 ? await first.text() : '' };
  };

  beforeAll(async () => {
    t = await startBrowserApp({}, { clock });
    d = await discover(t.origin);
    client = await registerClient(d.as, { redirect_uris: [REDIRECT] });
  });
  afterAll(async () => t?.stop());

  it('registers public clients only: a client asking for a secret is refused', async () => {
    const response = await oauth.dynamicClientRegistrationRequest(d.as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }, insecure);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_client_metadata');
    expect(client.client_secret).toBeUndefined();
  });

  it('registers a client that asks for any subset of the advertised scopes, as the MCP SDK does, and refuses unknown ones', async () => {
    const metadata = await (await fetch(`${t.origin}/.well-known/oauth-authorization-server`)).json() as { scopes_supported: string[] };
    for (const scope of [metadata.scopes_supported.join(' '), 'retrieve', 'retrieve offline_access']) {
      const response = await fetch(`${t.origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], client_name: 'SDK-like', scope }),
      });
      expect(response.status).toBe(201);
      const registered = (await response.json()) as { client_id: string; client_secret?: string };
      expect(registered.client_secret).toBeUndefined();
      // The registered client connects with the scopes it asks for at authorization.
      const sdkLike = { client_id: registered.client_id, token_endpoint_auth_method: 'none', redirect_uris: [REDIRECT] } as oauth.Client;
      const request = await authorizationRequest(d.as, sdkLike, d.resource, { scope: 'retrieve offline_access' });
      const callback = await consentOverHttp(t, request, 'mallory-target@example.com');
      const issued = await tokens(d, sdkLike, await exchangeCode(d, sdkLike, request, callback));
      expect(issued.scope).toBe('retrieve');
    }
    const unknown = await oauth.dynamicClientRegistrationRequest(d.as, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', scope: 'retrieve sign' }, insecure);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('refuses redirect URIs that are neither https nor loopback http, or that carry user information', async () => {
    for (const uri of ['http://evil.example/cb', 'https://user:pw@assistant.example/cb', 'javascript:alert(1)', 'com.example.app:/cb']) {
      const response = await oauth.dynamicClientRegistrationRequest(d.as, { redirect_uris: [REDIRECT, uri], token_endpoint_auth_method: 'none' }, insecure);
      expect([uri, response.status, ((await response.json()) as { error: string }).error]).toEqual([uri, 400, 'invalid_redirect_uri']);
    }
    for (const uri of ['https://assistant.example/other', 'http://127.0.0.1:9/cb', 'http://localhost:8080/cb', 'http://[::1]:7/cb']) {
      const response = await oauth.dynamicClientRegistrationRequest(d.as, { redirect_uris: [uri], token_endpoint_auth_method: 'none' }, insecure);
      expect([uri, response.status]).toEqual([uri, 201]);
    }
  });

  it('issues and stores no client secret for a registration that names no authentication method', async () => {
    const response = await fetch(`${t.origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'No method named' }),
    });
    expect(response.status).toBe(201);
    const registered = (await response.json()) as { client_id: string; client_secret?: string; token_endpoint_auth_method: string };
    expect(registered.token_endpoint_auth_method).toBe('none');
    expect(registered.client_secret).toBeUndefined();
    const stored = await t.app.orm.em.fork().execute<{ payload: unknown }[]>(`select payload from oauth_payloads where model = 'Client' and payload->>'client_id' = ?`, [registered.client_id]);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored[0]!.payload)).not.toContain('client_secret');
  });

  it('refuses a refresh for another resource before rotating: the refresh token still works after it', async () => {
    const issued = await connected();
    expect(await tokenError(await refresh(d, client, issued.refresh_token!, { resource: `${t.origin}/mcp` }))).toEqual({ status: 400, error: 'invalid_target' });
    const next = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!));
    expect(await alive(next.access_token)).toBe(true);
  });

  it('refuses a reused authorization code and revokes what the first use issued', async () => {
    const { request, callback } = await consented();
    const first = await tokens(d, client, await exchangeCode(d, client, request, callback));
    const grantId = await grantOf(first.access_token);
    expect(await tokenError(await exchangeCode(d, client, request, callback))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await alive(first.access_token)).toBe(false);
    expect(await tokenError(await refresh(d, client, first.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await tokensStored('grant_id = ?', [grantId])).toBe(0);
  });

  it('refuses a missing or wrong PKCE verifier, and plain or absent PKCE at the authorization endpoint', async () => {
    const { request, callback } = await consented();
    const code = callback.searchParams.get('code')!;
    const before = await tokensStored('true', []);
    const missing = await fetch(d.as.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, client_id: client.client_id, resource: d.resource }),
    });
    expect(await tokenError(missing)).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await tokenError(await exchangeCode(d, client, request, callback, { verifier: oauth.generateRandomCodeVerifier() }))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await tokensStored('true', [])).toBe(before);

    for (const params of [{ code_challenge_method: 'plain' }, { code_challenge: undefined, code_challenge_method: undefined }]) {
      const refused = await open(await authorizationRequest(d.as, client, d.resource, params));
      // Refused before any consent page, with an error page: never a redirect (no open redirector, RFC 9700 4.11.2).
      expect(refused.status).toBe(400);
      expect(refused.location).toBeNull();
      expect(refused.body).toContain('invalid_request');
    }
  });

  it('refuses an unknown scope, a request for no record permission and a response mode other than query, before any consent page', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ scope: 'retrieve bogus' }, 'invalid_scope'],
      [{ scope: 'openid' }, 'invalid_scope'],
      [{ scope: 'offline_access' }, 'invalid_scope'],
      [{ response_mode: 'fragment' }, 'invalid_request'],
      [{ response_mode: 'form_post' }, 'invalid_request'],
    ];
    for (const [params, error] of cases) {
      const refused = await open(await authorizationRequest(d.as, client, d.resource, params));
      // An error page, never a redirect to the client (RFC 9700 4.11.2), and no consent page to mail a code from.
      expect([params, refused.status, refused.location]).toEqual([params, 400, null]);
      expect(refused.body).toContain(error);
    }
    // What the metadata advertises still opens the consent page.
    expect((await open(await authorizationRequest(d.as, client, d.resource, { scope: 'retrieve offline_access', response_mode: 'query' }))).status).toBe(303);
  });

  it('matches redirect URIs exactly: every variant is refused without redirecting anywhere', async () => {
    const variants = [
      'https://assistant.example/oauth/callback/',
      'https://ASSISTANT.example/oauth/callback',
      'https://assistant.example/OAuth/callback',
      'https://assistant.example/oauth/callback?x=1',
      'https://assistant.example:8443/oauth/callback',
      'http://assistant.example/oauth/callback',
      'https://assistant.example/oauth/callbackx',
      'https://evil.example/oauth/callback',
    ];
    for (const redirect_uri of variants) {
      const refused = await open(await authorizationRequest(d.as, client, d.resource, { redirect_uri }));
      expect([redirect_uri, refused.status, refused.location]).toEqual([redirect_uri, 400, null]);
      expect(refused.body).toContain('invalid_redirect_uri');
    }
  });

  it('applies the loopback port rule to native clients only', async () => {
    const native = await registerClient(d.as, { redirect_uris: ['http://127.0.0.1:7777/callback'], application_type: 'native' });
    const web = await registerClient(d.as, { redirect_uris: ['http://127.0.0.1:7777/callback'] });
    const nativeOtherPort = await open(await authorizationRequest(d.as, native, d.resource, { redirect_uri: 'http://127.0.0.1:51234/callback' }));
    expect(nativeOtherPort.status).toBe(303);
    expect(nativeOtherPort.location).toMatch(/^\/oauth\/consent\//);
    for (const [who, redirect_uri] of [
      [web, 'http://127.0.0.1:51234/callback'],
      [native, 'http://127.0.0.1:51234/callback/'],
      [native, 'http://127.0.0.1:51234/other'],
    ] as const) {
      const refused = await open(await authorizationRequest(d.as, who, d.resource, { redirect_uri }));
      expect([redirect_uri, refused.status]).toEqual([redirect_uri, 400]);
    }
  });

  it('issues no token for another resource, at the authorization or the token endpoint', async () => {
    const refused = await open(await authorizationRequest(d.as, client, `${t.origin}/api/v1`));
    expect([refused.status, refused.location]).toEqual([400, null]);
    expect(refused.body).toContain('invalid_target');
    const { request, callback } = await consented();
    const before = await tokensStored('true', []);
    expect(await tokenError(await exchangeCode(d, client, request, callback, { resource: `${t.origin}/mcp` }))).toEqual({ status: 400, error: 'invalid_target' });
    expect(await tokensStored('true', [])).toBe(before);
  });

  it('revokes the whole grant when a rotated refresh token comes back, the newest tokens included', async () => {
    const issued = await connected();
    const next = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!));
    expect(await alive(next.access_token)).toBe(true);
    expect(await tokenError(await refresh(d, client, issued.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await tokenError(await refresh(d, client, next.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
    expect(await alive(next.access_token)).toBe(false);
  });

  it('lets at most one of two parallel refreshes with one token win, and handles the loser as reuse', async () => {
    const issued = await connected();
    const grantId = await grantOf(issued.access_token);
    const answers = await Promise.all([refresh(d, client, issued.refresh_token!), refresh(d, client, issued.refresh_token!)]);
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string; refresh_token?: string; access_token?: string } })));
    expect(bodies.filter((b) => b.status === 200).length).toBeLessThanOrEqual(1);
    expect(bodies.filter((b) => b.status === 400).map((b) => b.body.error)).toContain('invalid_grant');
    // Reuse ends the connection: whatever the winner got no longer works.
    for (const { body } of bodies) {
      if (body.access_token) expect(await alive(body.access_token)).toBe(false);
      if (body.refresh_token) expect(await tokenError(await refresh(d, client, body.refresh_token))).toEqual({ status: 400, error: 'invalid_grant' });
    }
    expect(await t.app.services.connectorAuth(`Bearer ${issued.access_token}`)).toEqual({ ok: false, error: 'invalid_token' });
    expect(await tokensStored('grant_id = ?', [grantId])).toBe(0);
  });

  it('ends the whole connection when the client revokes its access token, and ignores another client revoking it', async () => {
    const issued = await connected();
    const stranger = await registerClient(d.as, { redirect_uris: [REDIRECT] });
    await oauth.processRevocationResponse(await oauth.revocationRequest(d.as, stranger, oauth.None(), issued.access_token, insecure));
    expect(await alive(issued.access_token)).toBe(true);
    await oauth.processRevocationResponse(await oauth.revocationRequest(d.as, client, oauth.None(), issued.access_token, insecure));
    expect(await alive(issued.access_token)).toBe(false);
    expect(await tokenError(await refresh(d, client, issued.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
  });

  it('refuses to widen scopes on refresh', async () => {
    const issued = await connected({ scope: 'retrieve offline_access' });
    expect(issued.scope).toBe('retrieve');
    expect(await tokenError(await refresh(d, client, issued.refresh_token!, { scope: 'retrieve create' }))).toEqual({ status: 400, error: 'invalid_scope' });
    const narrowed = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!, { scope: 'retrieve' }));
    const outcome = await t.app.services.connectorAuth(`Bearer ${narrowed.access_token}`);
    expect(outcome.ok && outcome.principal.scopes).toEqual(['retrieve']);
  });

  it('lets a refresh ask again for any scope the person granted after one that asked for less (RFC 6749 section 6), never for more', async () => {
    const issued = await connected({ scope: 'retrieve create offline_access' });
    const narrowed = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!, { scope: 'retrieve' }));
    expect(narrowed.scope).toBe('retrieve');
    const again = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, narrowed.refresh_token!, { scope: 'retrieve create' }));
    expect(again.scope!.split(' ').sort()).toEqual(['create', 'retrieve']);
    expect(await tokenError(await refresh(d, client, again.refresh_token!, { scope: 'retrieve verify' }))).toEqual({ status: 400, error: 'invalid_scope' });
  });

  it('refuses a refresh past the 90 days of the grant', async () => {
    const issued = await connected();
    clock.advance(90 * 86_400_000 + 60_000);
    try {
      const before = await tokensStored('true', []);
      expect(await tokenError(await refresh(d, client, issued.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
      expect(await tokensStored('true', [])).toBe(before);
      expect(await alive(issued.access_token)).toBe(false);
    } finally {
      clock.advance(-(90 * 86_400_000 + 60_000));
    }
  });

  it('answers access_denied on Deny, and never reuses a browser session for the next authorization', async () => {
    const jar = new CookieJar();
    const request = await authorizationRequest(d.as, client, d.resource);
    const opened = await follow(jar, await jar.fetch(request.url), t.origin);
    expect(opened.response.status).toBe(200);
    const denied = await follow(jar, await jar.post(`${opened.url}/deny`, {}), t.origin);
    const back = new URL(denied.url);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();

    // Consent once in this browser; the next authorization still shows the page and asks for a code.
    await consentOverHttp(t, await authorizationRequest(d.as, client, d.resource), 'alice@example.com', jar);
    const again = await follow(jar, await jar.fetch((await authorizationRequest(d.as, client, d.resource)).url), t.origin);
    expect(again.response.status).toBe(200);
    expect(again.url).toMatch(/\/oauth\/consent\//);
    expect(await again.response.text()).toContain('Email me a code');
  });

  it('accepts only a code of the consent purpose, and that code nowhere else', async () => {
    const jar = new CookieJar();
    const request = await authorizationRequest(d.as, client, d.resource);
    const opened = await follow(jar, await jar.fetch(request.url), t.origin);
    await opened.response.text();
    // A sign-in code does not consent.
    const before = t.smtp.messages.length;
    const signIn = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'bob@example.com', purpose: 'authenticate' } });
    const signInCode = await t.smtp.codeFor('bob@example.com', before);
    const refused = await jar.post(`${opened.url}/confirm`, { verification_event_id: signIn.body.verification_event_id, code: signInCode, email: 'bob@example.com' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('cannot be used here');
    // A consent code does not sign in, and cannot be requested through request-otp.
    const mailed = t.smtp.messages.length;
    const page = await (await jar.post(`${opened.url}/email`, { email: 'bob@example.com' })).text();
    const consentCode = await t.smtp.codeFor('bob@example.com', mailed);
    const verify = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: hiddenField(page, 'verification_event_id'), code: consentCode } });
    expect(verify.status).toBe(422);
    expect((await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'bob@example.com', purpose: 'connector_consent' } })).status).toBe(422);
  });

  it('gives the connector principal no way to sign: auto_seal is refused, and its token satisfies no method and cannot finalize', async () => {
    const issued = await connected();
    const outcome = await t.app.services.connectorAuth(`Bearer ${issued.access_token}`);
    if (!outcome.ok) throw new Error('no principal');
    const principal: Principal = outcome.principal;
    const graph = t.app.services.graph.bind({ principal, via: 'mcp', requestId: 'oauth-test' });
    const code = (promise: Promise<unknown>) => promise.then(() => 'none', (e: unknown) => (e instanceof GraphOperationError ? e.code : String(e)));

    expect(
      await code(
        runEntry(graph, catalog.notarizations.create, {
          input: { contentType: 'hash', contentHash: `sha256:${'a'.repeat(64)}`, label: 'Report', signatureMode: 'auto_seal' },
        }),
      ),
    ).toBe('forbidden');
    const record = await runEntry(graph, catalog.records.createAgreement, {
      input: {
        title: 'Garden',
        body: 'We agree to share the garden equally and to take turns watering it every week.',
        onChainFullText: false,
        onChainIncludeVerifiedParties: false,
        parties: [{ displayName: 'Bob', contactPointValue: 'bob@example.com' }],
      },
    });
    const execution = await runEntry(graph, catalog.ceremony.startExecution, { recordId: record.id, withSvg: false });
    expect(execution.canFinalize).toBe(false);
    expect(execution.methods.every((method) => method.status !== 'satisfied')).toBe(true);
    expect(execution.methods.map((method) => method.methodType)).not.toContain('api_key');
    expect(await code(runEntry(graph, catalog.ceremony.finalize, { recordId: record.id }))).toBe('signature_incomplete');
  });
});
