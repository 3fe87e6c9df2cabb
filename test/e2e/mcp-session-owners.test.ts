import { startBrowserApp } from '../support/browser.js';
import type { TestApp } from '../support/harness.js';
import { INITIALIZE, postMcp } from '../support/mcp.js';
import { authorizationRequest, consentOverHttp, discover, exchangeCode, registerClient, tokens, type Discovered } from '../support/oauth.js';

type App = TestApp & { origin: string };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

/**
 * An MCP session belongs to the endpoint and the credential that initialized it, for every method:
 * another person's key, no credential, another connector, or the other endpoint finds no session
 * (404, as for an unknown id), and cannot end it; its owner goes on.
 */
describe('MCP sessions belong to their creator', () => {
  let t: App;
  let d: Discovered;
  let aliceKey: string;
  let bobKey: string;

  /** A connected assistant's access token for `email` on /mcp/oauth. */
  async function connectorToken(email: string): Promise<string> {
    const client = await registerClient(d.as, { redirect_uris: ['https://assistant.example/oauth/callback'] });
    const request = await authorizationRequest(d.as, client, d.resource, {});
    const callback = await consentOverHttp(t, request, email);
    return (await tokens(d, client, await exchangeCode(d, client, request, callback))).access_token;
  }
  const keyFor = async (email: string) => (await t.request('POST', '/api/v1/api-keys', { token: await t.signIn(email), body: { scopes: ['retrieve'] } })).body.key as string;
  const open = async (path: '/mcp' | '/mcp/oauth', headers: Record<string, string>) => {
    const opened = await postMcp(t.url, INITIALIZE, headers, path);
    expect(opened.status).toBe(200);
    return opened.headers.get('mcp-session-id')!;
  };
  const remove = (path: string, sessionId: string, headers: Record<string, string>) => fetch(`${t.url}${path}`, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, ...headers } });

  beforeAll(async () => {
    t = await startBrowserApp();
    d = await discover(t.origin);
    [aliceKey, bobKey] = await Promise.all([keyFor('alice-mcp@example.com'), keyFor('bob-mcp@example.com')]);
  });
  afterAll(async () => t?.stop());

  it('/mcp: a session opened with a key answers only that key; another key or none finds nothing and cannot end it', async () => {
    const alice = { authorization: `Bearer ${aliceKey}` };
    const sessionId = await open('/mcp', alice);
    const session = { 'mcp-session-id': sessionId };
    expect((await postMcp(t.url, LIST, { ...session, ...alice })).status).toBe(200);
    expect((await postMcp(t.url, LIST, { ...session, authorization: `Bearer ${bobKey}` })).status).toBe(404);
    expect((await postMcp(t.url, LIST, session)).status).toBe(404);
    expect((await remove('/mcp', sessionId, { authorization: `Bearer ${bobKey}` })).status).toBe(404);
    expect((await remove('/mcp', sessionId, {})).status).toBe(404);
    // Alice's session goes on, and she alone ends it.
    expect((await postMcp(t.url, LIST, { ...session, ...alice })).status).toBe(200);
    expect((await remove('/mcp', sessionId, alice)).status).toBe(200);
    expect((await postMcp(t.url, LIST, { ...session, ...alice })).status).toBe(404);
  });

  it('/mcp: a session opened without a credential takes none: a key presented on it finds nothing', async () => {
    const sessionId = await open('/mcp', {});
    const session = { 'mcp-session-id': sessionId };
    expect((await postMcp(t.url, LIST, session)).status).toBe(200);
    expect((await postMcp(t.url, LIST, { ...session, authorization: `Bearer ${aliceKey}` })).status).toBe(404);
    expect((await remove('/mcp', sessionId, { authorization: `Bearer ${aliceKey}` })).status).toBe(404);
    expect((await remove('/mcp', sessionId, {})).status).toBe(200);
  });

  it('/mcp/oauth: a second connector can neither call nor end the first one\'s session, and an API key on /mcp cannot continue it', async () => {
    const [first, second] = [await connectorToken('carol-mcp@example.com'), await connectorToken('dave-mcp@example.com')];
    const sessionId = await open('/mcp/oauth', { authorization: `Bearer ${first}` });
    const session = { 'mcp-session-id': sessionId };
    expect((await postMcp(t.url, LIST, { ...session, authorization: `Bearer ${first}` }, '/mcp/oauth')).status).toBe(200);
    expect((await postMcp(t.url, LIST, { ...session, authorization: `Bearer ${second}` }, '/mcp/oauth')).status).toBe(404);
    expect((await remove('/mcp/oauth', sessionId, { authorization: `Bearer ${second}` })).status).toBe(404);
    // The other endpoint: the session was made on /mcp/oauth.
    expect((await postMcp(t.url, LIST, { ...session, authorization: `Bearer ${aliceKey}` })).status).toBe(404);
    expect((await remove('/mcp', sessionId, { authorization: `Bearer ${aliceKey}` })).status).toBe(404);
    expect((await postMcp(t.url, LIST, { ...session, authorization: `Bearer ${first}` }, '/mcp/oauth')).status).toBe(200);
    expect((await remove('/mcp/oauth', sessionId, { authorization: `Bearer ${first}` })).status).toBe(200);
  });
});
