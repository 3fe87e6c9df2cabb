import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startBrowserApp } from '../support/browser.js';
import type { TestApp } from '../support/harness.js';
import { ManualClock } from '../support/clock.js';
import { TOOLS } from '../../src/facade-mcp/tools/index.js';
import { authorizationRequest, consentOverHttp, discover, exchangeCode, memoryOAuthProvider, refresh, registerClient, tokenError, tokens, type Discovered } from '../support/oauth.js';

type App = TestApp & { origin: string };

const REDIRECT = 'https://assistant.example/oauth/callback';

/** One connected assistant: registration, consent with the mailed code, and the first tokens. */
async function connect(t: App, d: Discovered, email = 'alice@example.com', params: Record<string, string | undefined> = {}) {
  const client = await registerClient(d.as, { redirect_uris: [REDIRECT] });
  const request = await authorizationRequest(d.as, client, d.resource, params);
  const callback = await consentOverHttp(t, request, email);
  const issued = await tokens(d, client, await exchangeCode(d, client, request, callback));
  return { client, request, callback, issued };
}

const mcpCall = (t: App, token?: string, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/mcp/oauth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

describe('Hosted assistant connector (OAuth 2.1 at /mcp/oauth)', () => {
  let t: App;
  let d: Discovered;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startBrowserApp({}, { clock });
    d = await discover(t.origin);
  });
  afterAll(async () => t?.stop());

  it('publishes both metadata documents and answers an unauthenticated /mcp/oauth with the resource-metadata pointer and the scope to ask for', async () => {
    expect(d.resource).toBe(`${t.origin}/mcp/oauth`);
    expect(d.as).toMatchObject({
      issuer: t.origin,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      scopes_supported: ['create', 'retrieve', 'verify', 'amend', 'cancel', 'offline_access'],
    });
    const response = await mcpCall(t);
    expect(response.status).toBe(401);
    // With the scope to ask for (MCP 2025-11-25): what an authorization request without scope asks for.
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.origin}/.well-known/oauth-protected-resource/mcp/oauth", scope="create retrieve verify amend cancel offline_access"`);
    const invalid = await mcpCall(t, 'not-a-token-of-this-server-0123456789');
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", scope="create retrieve verify amend cancel offline_access", error="invalid_token", error_description="[^"]+"$/);
  });

  it('connects with the emailed code, issues tokens bound to /mcp/oauth, rotates refresh tokens within the 90 days, and revocation ends it', async () => {
    const alice = await t.signIn('alice@example.com');
    const { client, issued } = await connect(t, d);
    expect(issued.token_type).toBe('bearer');
    expect(issued.expires_in).toBe(3600);
    expect(issued.refresh_token).toEqual(expect.any(String));
    expect(issued.scope!.split(' ').sort()).toEqual(['amend', 'cancel', 'create', 'retrieve', 'verify']);

    // The token is a connector principal of the identity that consented, with the granted scopes.
    const me = await t.request('GET', '/api/v1/identity/contact-points', { token: alice });
    const principal = await t.app.services.connectorAuth(`Bearer ${issued.access_token}`);
    expect(principal).toMatchObject({ ok: true, principal: { kind: 'oauth', clientId: client.client_id, scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] } });
    const identityId = (await t.app.orm.em.fork().execute<{ identity_id: string }[]>('select identity_id from contact_points where id = ?', [me.body.contact_points[0].id]))[0]!.identity_id;
    expect(principal.ok && principal.principal.identityId).toBe(identityId);
    // The MCP SDK's own client at /mcp/oauth with the access token: initialize, tools/list, tools/call.
    const transport = new StreamableHTTPClientTransport(new URL('/mcp/oauth', t.url), { requestInit: { headers: { Authorization: `Bearer ${issued.access_token}` } } });
    const mcp = new Client({ name: 'hosted-assistant', version: '1.0.0' });
    await mcp.connect(transport);
    expect(transport.sessionId).toEqual(expect.any(String));
    // The same catalogue as /mcp (its count is test/unit/mcp-tools.test.ts's).
    expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    const status = (await mcp.callTool({ name: 'get_authentication_status', arguments: {} })) as CallToolResult;
    expect(status.structuredContent).toMatchObject({ authenticated: true, auth_method: 'oauth', scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] });
    const created = (await mcp.callTool({
      name: 'create_agreement',
      arguments: { body: 'We agree to share the garden equally and to take turns watering it every week.', other_party_email: 'bob@example.com', other_party_name: 'Bob', on_chain_full_text: false, on_chain_include_verified_parties: false },
    })) as CallToolResult;
    expect(created.isError).not.toBe(true);
    const listedByAlice = await t.request('GET', '/api/v1/identity/agreements', { token: alice });
    expect(listedByAlice.body.agreements.map((a: { agr_reference: string }) => a.agr_reference)).toContain((created.structuredContent as { agr_reference: string }).agr_reference);
    await mcp.close();

    // Bound to /mcp/oauth: refused by /api/v1, /graphql and /mcp; and other credentials are refused at /mcp/oauth.
    expect((await t.request('GET', '/api/v1/identity/agreements', { token: issued.access_token })).status).toBe(401);
    expect((await t.graphql('{ connectors { id } }', {}, { token: issued.access_token })).status).toBe(401);
    expect((await mcpCall(t, alice)).status).toBe(401);
    const key = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { name: 'k', scopes: ['retrieve'] } });
    expect((await mcpCall(t, undefined, { 'x-api-key': key.body.key })).status).toBe(401);
    expect((await mcpCall(t, key.body.key)).status).toBe(401);
    const direct = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(direct.status).toBe(401);

    // The person sees the connection.
    const listed = await t.request('GET', '/api/v1/identity/connectors', { token: alice });
    expect(listed.status).toBe(200);
    expect(listed.body.connectors).toEqual([
      expect.objectContaining({ client_id: client.client_id, client_name: 'Test Assistant', redirect_origin: 'https://assistant.example', scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel', 'offline_access'] }),
    ]);
    const connector = listed.body.connectors[0];
    const days = (Date.parse(connector.expires_at) - Date.parse(connector.created_at)) / 86_400_000;
    expect(days).toBe(90);

    // Refresh: a new refresh token each time; the grant's end never moves.
    const first = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!));
    expect(first.refresh_token).not.toBe(issued.refresh_token);
    expect((await t.app.services.connectorAuth(`Bearer ${first.access_token}`)).ok).toBe(true);
    const second = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, first.refresh_token!));
    const rows = await t.app.orm.em.fork().execute<{ expires_at: Date }[]>(
      `select p.expires_at from oauth_payloads p join connectors c on c.grant_id = p.grant_id where p.model = 'RefreshToken' and c.id = ?`,
      [connector.id],
    );
    for (const row of rows) expect(new Date(row.expires_at).getTime()).toBeLessThanOrEqual(Date.parse(connector.expires_at) + 5000);
    const again = await t.request('GET', '/api/v1/identity/connectors', { token: alice });
    expect(again.body.connectors[0].expires_at).toBe(connector.expires_at);

    // Revocation by the client (RFC 7009) ends the whole connection.
    await oauth.processRevocationResponse(await oauth.revocationRequest(d.as, client, oauth.None(), second.refresh_token!, { [oauth.allowInsecureRequests]: true }));
    expect(await t.app.services.connectorAuth(`Bearer ${second.access_token}`)).toEqual({ ok: false, error: 'invalid_token' });
    expect((await mcpCall(t, second.access_token)).status).toBe(401);
    expect((await t.request('GET', '/api/v1/identity/connectors', { token: alice })).body.connectors).toEqual([]);
  });

  it('lets a signed-in person list and disconnect connectors over REST and GraphQL, bearer only', async () => {
    const carol = await t.signIn('carol@example.com');
    const dave = await t.signIn('dave@example.com');
    const first = await connect(t, d, 'carol@example.com');
    const { issued } = first;
    const second = await connect(t, d, 'carol@example.com');

    const listed = await t.graphql('{ connectors { id clientName redirectOrigin scopes expiresAt } }', {}, { token: carol });
    expect(listed.body.data.connectors).toHaveLength(2);
    const [newest, oldest] = listed.body.data.connectors;
    expect((await t.graphql('{ connectors { id } }', {}, { token: dave })).body.data.connectors).toEqual([]);

    // Bearer only: an API key of the same identity is refused; another identity cannot disconnect it.
    const key = await t.request('POST', '/api/v1/api-keys', { token: carol, body: { name: 'k', scopes: ['retrieve'] } });
    const byKey = await t.request('GET', '/api/v1/identity/connectors', { apiKey: key.body.key });
    expect([byKey.status, byKey.body.error_code]).toEqual([403, 'bearer_required']);
    expect((await t.request('DELETE', `/api/v1/identity/connectors/${oldest.id}`, { token: dave })).status).toBe(404);

    expect((await t.request('DELETE', `/api/v1/identity/connectors/${oldest.id}`, { token: carol })).status).toBe(204);
    expect(await t.app.services.connectorAuth(`Bearer ${issued.access_token}`)).toEqual({ ok: false, error: 'invalid_token' });
    expect(await oauth.refreshTokenGrantRequest(d.as, first.client, oauth.None(), issued.refresh_token!, { [oauth.allowInsecureRequests]: true }).then((r) => r.status)).toBe(400);
    expect((await t.app.services.connectorAuth(`Bearer ${second.issued.access_token}`)).ok).toBe(true);
    expect((await t.request('DELETE', `/api/v1/identity/connectors/${oldest.id}`, { token: carol })).status).toBe(404);

    const disconnected = await t.graphql('mutation ($id: ID!) { disconnectConnector(id: $id) }', { id: newest.id }, { token: carol });
    expect(disconnected.body.data).toEqual({ disconnectConnector: true });
    expect((await t.app.services.connectorAuth(`Bearer ${second.issued.access_token}`)).ok).toBe(false);
    expect((await t.request('GET', '/api/v1/identity/connectors', { token: carol })).body).toEqual({ connectors: [] });
  });

  // The official SDK on a 403 insufficient_scope: with a refresh token it refreshes first (which cannot
  // widen the grant), so the service refuses that refresh once and the SDK goes on to consent.
  it.each([
    ['without a refresh token', 'retrieve', 'stepup@example.com'],
    ['with offline_access (the SDK refreshes first)', 'retrieve offline_access', 'stepup-offline@example.com'],
  ])('asks at the transport for a scope the token lacks (SEP-835), and the SDK client gets the person\'s consent to it and calls again: a grant %s', async (_case, scope, email) => {
    const offline = scope.includes('offline_access');
    const { client, issued } = await connect(t, d, email, { scope });
    expect(issued.scope).toBe('retrieve');
    expect(Boolean(issued.refresh_token)).toBe(offline);
    const opened = await mcpCall(t, issued.access_token);
    const session = opened.headers.get('mcp-session-id')!;
    const garden = { body: 'We agree to share the garden equally every week.', on_chain_full_text: false, on_chain_include_verified_parties: false };
    const call = await fetch(`${t.url}/mcp/oauth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${issued.access_token}`, 'mcp-session-id': session },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_agreement', arguments: garden } }),
    });
    expect(call.status).toBe(403);
    // The scope to ask for keeps offline_access when the grant has it: the new grant keeps a refresh token.
    const wanted = offline ? 'retrieve create offline_access' : 'retrieve create';
    expect(call.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${t.origin}/.well-known/oauth-protected-resource/mcp/oauth", error_description="create_agreement needs the 'create' scope, which this connector was not granted"`,
    );
    expect(await call.json()).toMatchObject({ id: 7, error: { data: { required_scopes: ['create'] } } });
    if (offline) {
      // The refresh right after it leads to consent (refused once, nothing rotated); the next one works as ever.
      expect(await tokenError(await refresh(d, client, issued.refresh_token!))).toEqual({ status: 400, error: 'consent_required' });
      const again = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!));
      expect(again.scope).toBe('retrieve');
      Object.assign(issued, { access_token: again.access_token, refresh_token: again.refresh_token });
    }

    // The official SDK client: the 403 makes it ask for consent to the challenge's scope; after it, the call runs.
    const { provider, state } = memoryOAuthProvider({
      redirectUrl: REDIRECT,
      clientName: 'Scoped Assistant',
      clientId: client.client_id,
      tokens: { access_token: issued.access_token, token_type: 'Bearer', ...(offline ? { refresh_token: issued.refresh_token } : {}) },
    });
    const { authorizations } = state;
    const transport = new StreamableHTTPClientTransport(new URL('/mcp/oauth', t.origin), { authProvider: provider });
    const sdk = new Client({ name: 'scoped-assistant', version: '1.0.0' });
    await sdk.connect(transport);
    expect((await sdk.callTool({ name: 'get_authentication_status', arguments: {} })).structuredContent).toMatchObject({ scopes: ['retrieve'] });
    // Unauthorized: the SDK redirected the person (not "Server returned 403 after trying upscoping").
    await expect(sdk.callTool({ name: 'create_agreement', arguments: garden })).rejects.toThrow(/Unauthorized/);
    expect(authorizations).toHaveLength(1);
    expect(authorizations[0]!.searchParams.get('scope')).toBe(wanted);
    expect(authorizations[0]!.searchParams.get('client_id')).toBe(client.client_id);
    const callback = await consentOverHttp(t, { url: authorizations[0]!, redirectUri: REDIRECT, verifier: state.verifier, state: '' }, email);
    await transport.finishAuth(callback.searchParams.get('code')!);
    expect(state.tokens?.scope?.split(' ').sort()).toEqual(['create', 'retrieve']);
    expect(Boolean(state.tokens?.refresh_token)).toBe(offline);
    if (offline) expect(state.tokens?.refresh_token).not.toBe(issued.refresh_token);
    const created = (await sdk.callTool({ name: 'create_agreement', arguments: garden })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toMatchObject({ status: 'draft' });
    await sdk.close();
  });

  it('resumes an SSE answer at /mcp/oauth (GET with Last-Event-ID) for the connector that started it, and for no other credential', async () => {
    const { issued } = await connect(t, d, 'resume@example.com');
    const bearer = { authorization: `Bearer ${issued.access_token}` };
    const post = (body: unknown, headers: Record<string, string>) =>
      fetch(`${t.url}/mcp/oauth`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    const opened = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'resume', version: '1' } } }, bearer);
    expect(opened.status).toBe(200);
    const session = { ...bearer, 'mcp-session-id': opened.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(listed.headers.get('content-type')).toContain('text/event-stream');
    // The priming event's id (the first `id:` of the stream): what a client that lost the answer resumes from.
    const primingId = /^id: ?(\S+)$/m.exec(await listed.text())?.[1];
    expect(primingId).toBeTruthy();

    const resume = (headers: Record<string, string>) => fetch(`${t.url}/mcp/oauth`, { headers: { accept: 'text/event-stream', 'last-event-id': primingId!, ...headers } });
    const resumed = await resume(session);
    expect(resumed.status).toBe(200);
    const replayed = await resumed.text();
    expect(replayed).toContain('"id":2');
    expect(replayed).toContain('start_or_resume_signature_execution');

    // Without the token: the resource-metadata pointer, as for a POST; with another credential: refused.
    const { authorization: _token, ...withoutToken } = session;
    const unauthenticated = await resume(withoutToken);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${t.origin}/.well-known/oauth-protected-resource/mcp/oauth", scope="create retrieve verify amend cancel offline_access"`);
    const apiKey = (await t.request('POST', '/api/v1/api-keys', { token: await t.signIn('resume@example.com'), body: { scopes: ['retrieve'] } })).body.key as string;
    expect((await resume({ ...session, authorization: `Bearer ${apiKey}` })).status).toBe(401);
    // Another connector's token (another person's) resumes nothing of this session.
    const other = await connect(t, d, 'someone-else@example.com');
    const foreign = await resume({ ...session, authorization: `Bearer ${other.issued.access_token}` });
    expect(foreign.status).toBe(404);
    const foreignBody = await foreign.text();
    expect(JSON.parse(foreignBody).error.message).toBe('Session not found');
    expect(foreignBody).not.toContain('start_or_resume_signature_execution');
    // The connector that started it still resumes it.
    expect((await resume(session)).status).toBe(200);
  });
});
