import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBrowserApp } from '../support/browser.js';
import type { TestApp } from '../support/harness.js';
import { consentOverHttp, CookieJar, discover, follow, memoryOAuthProvider, startClientMetadataServer } from '../support/oauth.js';

const REDIRECT = 'https://assistant.example/oauth/callback';

/**
 * Client ID Metadata Documents (the 2025-11-25 authorization spec): an assistant whose client_id is
 * an https URL of its own metadata connects without registering. The document is served over https
 * on 127.0.0.1 by the test (a certificate it makes, trusted through OAUTH_CLIENT_METADATA_CA_FILE,
 * the host allowed through OAUTH_CLIENT_METADATA_ALLOWED_HOSTS), and the official SDK's auth() uses it.
 */
describe('OAuth connector with a Client ID Metadata Document', () => {
  let t: TestApp & { origin: string };
  let documents: Awaited<ReturnType<typeof startClientMetadataServer>>;
  let base: string;
  let publish: (file: string, extra?: Record<string, unknown>) => string;

  beforeAll(async () => {
    documents = await startClientMetadataServer(REDIRECT);
    ({ base, publish } = documents);
    t = await startBrowserApp({ OAUTH_CLIENT_METADATA_ALLOWED_HOSTS: new URL(base).host, OAUTH_CLIENT_METADATA_CA_FILE: documents.cert });
  });
  afterAll(async () => {
    await t?.stop();
    await documents?.stop();
  });

  const authorize = (clientId: string, redirect = REDIRECT) => {
    const url = new URL('/oauth/authorize', t.origin);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      scope: 'retrieve',
      resource: `${t.origin}/mcp/oauth`,
    })) {
      url.searchParams.set(name, value);
    }
    return fetch(url, { redirect: 'manual' });
  };

  it('says it supports them, and the SDK client connects with its document URL as client id, through consent, without registering', async () => {
    const d = await discover(t.origin);
    expect(d.as).toMatchObject({ client_id_metadata_document_supported: true });
    const clientId = publish('/assistant/client.json');

    const { provider, state } = memoryOAuthProvider({ redirectUrl: REDIRECT, clientName: 'Metadata Assistant', clientMetadataUrl: clientId });
    const { registrations: registered, authorizations } = state;
    const transport = new StreamableHTTPClientTransport(new URL('/mcp/oauth', t.origin), { authProvider: provider });
    const sdk = new Client({ name: 'metadata-assistant', version: '1.0.0' });
    await expect(sdk.connect(transport)).rejects.toThrow(/Unauthorized/);
    // The URL is the client id: nothing was registered (the "registration" the SDK saves is the URL itself).
    expect(registered).toEqual([expect.objectContaining({ client_id: clientId })]);
    expect(authorizations).toHaveLength(1);
    expect(authorizations[0]!.searchParams.get('client_id')).toBe(clientId);

    // The consent page names the application as its document does, and says whose claim that is.
    const jar = new CookieJar();
    const opened = await follow(jar, await jar.fetch(authorizations[0]!), t.origin);
    const page = await opened.response.text();
    expect(`${opened.response.status} ${page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)}`).toMatch(/^200 /);
    expect(page).toContain('Metadata Assistant');
    expect(page).toContain(`the name it gave itself, published by <code>${new URL(base).host}</code>`);
    expect(page).toContain('<dt>Its website</dt><dd><code>assistant.example</code>');
    expect(page).toContain('<code>https://assistant.example</code>');

    const callback = await consentOverHttp(t, { url: authorizations[0]!, redirectUri: REDIRECT, verifier: state.verifier, state: '' }, 'metadata@example.com');
    await transport.finishAuth(callback.searchParams.get('code')!);
    expect(state.tokens?.access_token).toBeTruthy();
    const again = new Client({ name: 'metadata-assistant', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL('/mcp/oauth', t.origin), { authProvider: provider }));
    expect((await again.callTool({ name: 'get_authentication_status', arguments: {} })).structuredContent).toMatchObject({ authenticated: true, auth_method: 'oauth' });
    await again.close();

    // The person's connector list shows it by its document's name.
    const token = await t.signIn('metadata@example.com');
    const listed = await t.request('GET', '/api/v1/identity/connectors', { token });
    expect(listed.body.connectors).toEqual([expect.objectContaining({ client_id: clientId, client_name: 'Metadata Assistant', redirect_origin: 'https://assistant.example' })]);
  });

  it('refuses a redirect URI the document does not list, a document that names another client id, and a private host not allowed, never redirecting', async () => {
    const listed = publish('/listed/client.json');
    const elsewhere = await authorize(listed, 'https://attacker.example/callback');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();

    const impostor = publish('/impostor/client.json', { client_id: `${base}/someone-else.json` });
    const refused = await authorize(impostor);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();

    // A host that resolves to a private address and is not allowed: no fetch reaches it.
    const before = documents.fetched();
    const privateHost = await authorize(`https://localhost:${new URL(base).port}/assistant/client.json`);
    expect(privateHost.status).toBe(400);
    expect(privateHost.headers.get('location')).toBeNull();
    expect(documents.fetched()).toBe(before);
  });

  it('refuses a client id on a loopback host not allowed before connecting to it, and at once: no port probing through the fetch', async () => {
    // A listener that never answers: a fetch that connected would be counted, then wait for a TLS
    // answer until the fetch's deadline: seconds against a refusal's milliseconds, what an attacker would time.
    const connections: Socket[] = [];
    const listener = createServer((socket) => void connections.push(socket));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      // The authorization server is made on first use: made before anything is timed.
      expect((await authorize(publish('/warm/client.json'))).status).toBe(303);
      // An address, a name resolving to it, and the address in IPv6 form.
      for (const clientId of [`https://127.0.0.1:${port}/meta`, `https://localhost:${port}/meta`, `https://[::ffff:127.0.0.1]:${port}/meta`]) {
        const started = Date.now();
        const refused = await authorize(clientId);
        const answer = {
          status: refused.status,
          location: refused.headers.get('location'),
          invalidClient: (await refused.text()).includes('invalid_client'),
          connections: connections.length,
          quick: Date.now() - started < 1000,
        };
        expect({ clientId, ...answer }).toEqual({ clientId, status: 400, location: null, invalidClient: true, connections: 0, quick: true });
      }
    } finally {
      for (const socket of connections) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
