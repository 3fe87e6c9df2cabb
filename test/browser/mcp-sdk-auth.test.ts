import type { Browser } from 'playwright-core';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { agreementBody, type TestApp } from '../support/harness.js';
import { assistantCallback, launchChromium, newContext, screenshots, startBrowserApp } from '../support/browser.js';
import { startClientMetadataServer } from '../support/oauth.js';

const CALLBACK = 'https://assistant.example/oauth/callback';

/**
 * A hosted assistant as the official MCP SDK client builds it: an OAuthClientProvider that keeps
 * everything in memory and "redirects" by remembering the URL (the test's Chromium follows it).
 */
class AssistantProvider implements OAuthClientProvider {
  /** A Client ID Metadata Document's URL: the client id, with nothing registered. */
  constructor(readonly clientMetadataUrl?: string) {}
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  registrations: OAuthClientInformationMixed[] = [];

  get redirectUrl(): string {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK Assistant', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.registrations.push(information);
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * The whole connection of a hosted assistant with the official SDK's `auth()` and no pre-registered
 * client: discovery, dynamic registration, the person's consent in Chromium with the mailed code,
 * the token exchange, tool calls on /mcp/oauth, and a refresh after a malformed one.
 */
describe('The official MCP SDK client connects with auth()', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('registers without a secret, gets consent in the browser, exchanges the code and calls tools; a bad refresh ends nothing', async () => {
    const provider = new AssistantProvider();
    const serverUrl = `${t.origin}/mcp/oauth`;

    // Discovery and registration, then the redirect to the consent page.
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.registrations).toHaveLength(1);
    expect(provider.registrations[0]).not.toHaveProperty('client_secret');
    expect(provider.registrations[0]).toMatchObject({ token_endpoint_auth_method: 'none' });
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(t.origin);
    expect(authorizationUrl.searchParams.get('resource')).toBe(serverUrl);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    // The person, in Chromium: the mailed code is the consent; the browser lands on the assistant's callback.
    const context = await newContext(browser, t.origin);
    const landed = await assistantCallback(context);
    const page = await context.newPage();
    await page.goto(authorizationUrl.href);
    await page.getByRole('heading', { name: 'Connect SDK Assistant?' }).waitFor();
    const before = t.smtp.messages.length;
    await page.getByLabel('Email address').fill('sdk-person@example.com');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const code = await t.smtp.codeFor('sdk-person@example.com', before);
    await page.getByLabel('Six-digit code').fill(code);
    await page.getByRole('button', { name: 'Allow access' }).click();
    const back = await landed();
    await context.close();
    expect(back.searchParams.get('state')).toBe(authorizationUrl.searchParams.get('state'));
    const authorizationCode = back.searchParams.get('code')!;
    expect(authorizationCode).toBeTruthy();

    // The token exchange, by the SDK.
    expect(await auth(provider, { serverUrl, authorizationCode })).toBe('AUTHORIZED');
    const first = provider.saved!;
    expect(first.access_token).toBeTruthy();
    expect(first.refresh_token).toBeTruthy();
    // The access token's scopes are the record scopes asked for; offline_access shows as the refresh token.
    expect(first.scope?.split(' ')).toEqual(['create', 'retrieve', 'verify', 'amend', 'cancel']);

    // Tools on /mcp/oauth with the SDK's client and transport, the provider supplying the token.
    const mcp = new Client({ name: 'sdk-assistant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    const tools = await mcp.listTools();
    expect(tools.tools.map((tool) => tool.name)).toContain('list_agreements');
    const status = await mcp.callTool({ name: 'get_authentication_status', arguments: {} });
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({ authenticated: true, auth_method: 'oauth', scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] });
    // The connector acts for the person who consented: their record, made over REST, is listed.
    const made = await t.request('POST', '/api/v1/agreements', { token: await t.signIn('sdk-person@example.com'), body: agreementBody({ title: 'Made by the person' }) });
    expect(made.status).toBe(201);
    const listed = await mcp.callTool({ name: 'list_agreements', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ total: 1, agreements: [expect.objectContaining({ title: 'Made by the person' })] });
    await mcp.close();

    // A malformed refresh (another resource) is refused before anything rotates...
    const metadata = (await (await fetch(`${t.origin}/.well-known/oauth-authorization-server`)).json()) as { token_endpoint: string };
    const malformed = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: provider.client!.client_id, resource: `${t.origin}/mcp` }),
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toBe('invalid_target');
    // ...so the SDK's own refresh with the same token still works, and the connection goes on.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.saved!.access_token).not.toBe(first.access_token);
    expect(provider.saved!.refresh_token).not.toBe(first.refresh_token);
    const again = new Client({ name: 'sdk-assistant', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    expect((await again.callTool({ name: 'list_agreements', arguments: {} })).isError).toBeFalsy();
    await again.close();
  }, 60_000);
});

/**
 * The same connection with a Client ID Metadata Document (the 2025-11-25 authorization spec): the
 * SDK's `auth()` sends its document's https URL as the client id (served by the test on 127.0.0.1),
 * registers nothing, and the person consents in Chromium on a page that names the client as its
 * document does, saying whose claim the name is.
 */
describe('The official MCP SDK client connects with auth() and a Client ID Metadata Document', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let documents: Awaited<ReturnType<typeof startClientMetadataServer>>;

  beforeAll(async () => {
    documents = await startClientMetadataServer(CALLBACK);
    [t, browser] = await Promise.all([
      startBrowserApp({ OAUTH_CLIENT_METADATA_ALLOWED_HOSTS: new URL(documents.base).host, OAUTH_CLIENT_METADATA_CA_FILE: documents.cert }),
      launchChromium(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await documents?.stop();
  });

  it('uses the document URL as client id, gets consent in the browser and calls tools, without registering', async () => {
    const clientId = documents.publish('/assistant/client.json', { client_name: 'Document Assistant' });
    const provider = new AssistantProvider(clientId);
    const serverUrl = `${t.origin}/mcp/oauth`;
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    // What the SDK "saved" is the URL itself: no registration happened.
    expect(provider.registrations).toEqual([expect.objectContaining({ client_id: clientId })]);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('client_id')).toBe(clientId);

    const context = await newContext(browser, t.origin);
    const landed = await assistantCallback(context);
    const page = await context.newPage();
    await page.goto(authorizationUrl.href);
    await page.getByRole('heading', { name: 'Connect Document Assistant?' }).waitFor();
    await page.getByText(`published by ${new URL(documents.base).host}`).waitFor();
    await screenshots(page, 'oauth-consent-client-metadata');
    const before = t.smtp.messages.length;
    await page.getByLabel('Email address').fill('document-person@example.com');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Six-digit code').fill(await t.smtp.codeFor('document-person@example.com', before));
    await page.getByRole('button', { name: 'Allow access' }).click();
    const back = await landed();
    await context.close();

    expect(await auth(provider, { serverUrl, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
    const mcp = new Client({ name: 'document-assistant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    expect((await mcp.callTool({ name: 'get_authentication_status', arguments: {} })).structuredContent).toMatchObject({ authenticated: true, auth_method: 'oauth' });
    await mcp.close();
    const listed = await t.request('GET', '/api/v1/identity/connectors', { token: await t.signIn('document-person@example.com') });
    expect(listed.body.connectors).toEqual([expect.objectContaining({ client_id: clientId, client_name: 'Document Assistant' })]);
  }, 60_000);
});
