import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { freePort } from '../support/chain.js';
import { memoryOAuthProvider } from '../support/oauth.js';
import { ManualClock } from '../support/clock.js';
import { connectMcp, type McpClient } from '../support/mcp.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';

describe('MCP authentication on /mcp', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let reference: string;
  const open: McpClient[] = [];
  const connect = async (bearer?: string) => {
    const client = await connectMcp(t.url, { bearer });
    open.push(client);
    return client;
  };

  /** Signs in over MCP with an email code; answers the verify result. */
  async function signInOverMcp(mcp: McpClient, email: string, manual = false) {
    const before = t.smtp.messages.length;
    const requested = await mcp.call('request_authentication_otp', { email });
    expect(requested.isError).toBe(false);
    expect(requested.structured.next_action.tool).toBe('verify_authentication_otp');
    const code = await t.smtp.codeFor(email, before);
    return mcp.call('verify_authentication_otp', { verification_event_id: requested.structured.verification_event_id, code, manual_transport_token: manual });
  }

  beforeAll(async () => {
    // PUBLIC_BASE_URL is where the app listens: an SDK client follows the metadata URLs it names.
    const port = await freePort();
    t = await startTestApp({ PORT: String(port), PUBLIC_BASE_URL: `http://localhost:${port}` }, { clock });
    reference = (await sealTwoPartyAgreement(t)).reference;
  });
  afterAll(async () => {
    for (const client of open) await client.close().catch(() => undefined);
    await t?.stop();
  });

  it('verifies publicly without credentials; private reads answer auth_required with the way to sign in', async () => {
    const mcp = await connect();
    const verified = await mcp.call('verify_agreement', { agr_reference: reference });
    expect(verified.structured).toMatchObject({ record_found: true, verdict: 'certificate', status: 'sealed' });
    const read = await mcp.call('get_agreement', { agr_reference: reference });
    expect(read.isError).toBe(true);
    expect(read.structured).toMatchObject({ error_code: 'auth_required', required_scopes: ['retrieve'], retry_action: { tool: 'request_authentication_otp' } });
  });

  it('answers a tool that needs more than retrieve with its scopes and the credentials that carry them, not a sign-in code', async () => {
    const mcp = await connect();
    const created = await mcp.call('create_agreement', { body: 'We agree to share the garden equally every week.', on_chain_full_text: false, on_chain_include_verified_parties: false });
    expect(created.isError).toBe(true);
    expect(created.structured).toMatchObject({ error_code: 'auth_required', required_scopes: ['create'], retry_action: { tool: 'get_authentication_status', arguments: {} } });
    expect(created.structured.message).toMatch(/create_agreement needs the 'create' scope\. Connect with an API key .*\/mcp\/oauth; a sign-in code grants `retrieve` only/);
    const guarded = await mcp.call('preview_cancellation', { agr_reference: reference, action: 'cancel' });
    expect(guarded.structured).toMatchObject({ error_code: 'auth_required', required_scopes: ['retrieve', 'cancel'], retry_action: { tool: 'get_authentication_status' } });
    const status = await mcp.call('get_authentication_status');
    expect(status.structured).toMatchObject({ authenticated: false, next_action: { tool: 'request_authentication_otp' } });
    expect(status.structured.human_step).toMatch(/API key .*\/mcp\/oauth/);
  });

  it('a revoked API key on /mcp fails the SDK client (with an OAuth provider) without registering a client or starting consent', async () => {
    const token = await t.signIn('revoked-key@example.com');
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } });
    expect((await t.request('DELETE', `/api/v1/api-keys/${created.body.id}`, { token })).status).toBeLessThan(300);
    // An assistant as the Inspector and hosted clients build it: an OAuth provider beside the configured bearer.
    const { provider, state } = memoryOAuthProvider({ redirectUrl: 'https://assistant.example/oauth/callback', clientName: 'Inspector-like' });
    const payloads = async () => Number((await t.app.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from oauth_payloads'))[0]!.n);
    const before = await payloads();
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', t.config.publicBaseUrl), { authProvider: provider, requestInit: { headers: { Authorization: `Bearer ${created.body.key}` } } });
    const client = new Client({ name: 'inspector-like', version: '1.0.0' });
    // /mcp's 401 names the connector's resource (/mcp/oauth): the SDK sees it is not /mcp and stops there.
    await expect(client.connect(transport)).rejects.toThrow(/mcp\/oauth does not match/);
    await client.close().catch(() => undefined);
    expect(state.registrations).toEqual([]);
    expect(state.authorizations).toEqual([]);
    expect(await payloads()).toBe(before);
    // The 401 itself says which credentials /mcp takes.
    const answer = await fetch(new URL('/mcp', t.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${created.body.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http[^"]+\/\.well-known\/oauth-protected-resource\/mcp\/oauth"$/);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/\/mcp takes an API key or an MCP transport token.*\/mcp\/oauth/);
  });

  it('takes an API key as the transport bearer, with exactly the key\'s scopes', async () => {
    const token = await t.signIn('alice@example.com');
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } });
    const mcp = await connect(created.body.key);
    const status = await mcp.call('get_authentication_status');
    expect(status.structured).toMatchObject({ authenticated: true, scopes: ['retrieve'], auth_method: 'api_key', session_bound: false });
    expect((await mcp.call('get_agreement', { agr_reference: reference })).structured.agr_reference).toBe(reference);
    const refused = await mcp.call('create_agreement', { body: 'We agree to share the garden equally every week.', on_chain_full_text: false, on_chain_include_verified_parties: false });
    expect(refused.structured).toMatchObject({ error_code: 'missing_scope', required_scopes: ['create'] });
  });

  it('refuses an invalid transport credential at the transport (401), never as anonymity, and opens no session', async () => {
    const sessions = async () => Number((await t.app.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from mcp_sessions'))[0]!.n);
    const before = await sessions();
    await expect(connectMcp(t.url, { bearer: 'rss_key_not-a-real-key' })).rejects.toMatchObject({ code: 401 });
    await expect(connectMcp(t.url, { bearer: 'some-other-token' })).rejects.toMatchObject({ code: 401 });
    expect(await sessions()).toBe(before);
  });

  it('grants retrieve only, bound to the MCP session, after an email code; never more', async () => {
    const mcp = await connect();
    const verified = await signInOverMcp(mcp, 'bob@example.com');
    expect(verified.structured).toMatchObject({ authenticated: true, scopes: ['retrieve'], session_bound: true, transport_token: null });
    expect(verified.structured.expires_in).toBeLessThanOrEqual(600);
    expect((await mcp.call('get_authentication_status')).structured).toMatchObject({ authenticated: true, scopes: ['retrieve'], auth_method: 'mcp_otp', session_bound: true });
    expect((await mcp.call('get_agreement', { agr_reference: reference })).isError).toBe(false);
    const listed = await mcp.call('list_agreements', {});
    expect(listed.structured.agreements.map((entry: { agr_reference: string }) => entry.agr_reference)).toContain(reference);

    // Authentication never signs: the ceremony needs `verify`, which the grant never has.
    const signing = await mcp.call('start_or_resume_signature_execution', { agr_reference: reference });
    expect(signing.structured).toMatchObject({ error_code: 'missing_scope', required_scopes: ['verify'] });

    // Another session of the same client software is anonymous: the grant rides on this session only.
    const other = await connect();
    expect((await other.call('get_authentication_status')).structured.authenticated).toBe(false);
  });

  it('returns a manual transport token on request, usable only as the /mcp bearer, for at most 600 seconds', async () => {
    const mcp = await connect();
    const verified = await signInOverMcp(mcp, 'bob@example.com', true);
    const transportToken = verified.structured.transport_token as string;
    expect(transportToken).toMatch(/^rss_mcp_/);

    const stateless = await connect(transportToken);
    expect((await stateless.call('get_authentication_status')).structured).toMatchObject({ authenticated: true, scopes: ['retrieve'], auth_method: 'mcp_otp', session_bound: false });
    // Not a REST or GraphQL credential.
    expect((await t.request('GET', `/api/v1/agreements/${reference}`, { token: transportToken })).status).toBe(401);

    clock.advance(601_000);
    await expect(connectMcp(t.url, { bearer: transportToken })).rejects.toMatchObject({ code: 401 });
    expect((await mcp.call('get_authentication_status')).structured.authenticated).toBe(false);
  });

  it('refuses an API key in tool arguments without echoing it', async () => {
    const mcp = await connect();
    const key = 'rss_key_secretsecretsecret';
    const refused = await mcp.call('verify_agreement', { agr_reference: key });
    expect(refused.structured.error_code).toBe('validation_error');
    expect(JSON.stringify(refused.result)).not.toContain(key);
  });

  it('names the wrong argument on a validation error', async () => {
    const mcp = await connect();
    const refused = await mcp.call('request_authentication_otp', { email: 'not-an-email' });
    expect(refused.structured).toMatchObject({ error_code: 'validation_error', issues: [expect.objectContaining({ path: ['email'] })] });
  });

  it('never logs codes, tokens or keys', async () => {
    const logs = t.logs();
    for (const mail of t.smtp.messages) {
      const code = /code is (\d{6})/.exec(mail.text)?.[1];
      if (code) expect(logs).not.toContain(code);
    }
    expect(logs).not.toMatch(/rss_mcp_[A-Za-z0-9_-]{20}/);
    expect(logs).not.toMatch(/rss_mcps_[A-Za-z0-9_-]{20}/);
    expect(logs).not.toMatch(/rss_key_[A-Za-z0-9_-]{20}/);
  });
});
