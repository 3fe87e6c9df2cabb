import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { TestApp } from './harness.js';

/** Tests run over http on loopback: oauth4webapi insists on https unless told otherwise. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export type Discovered = { as: oauth.AuthorizationServer; resource: string };

/** What an MCP client does: RFC 9728 from the resource, then RFC 8414 from the server it names. */
export async function discover(origin: string): Promise<Discovered> {
  const resourceUrl = new URL(`${origin}/mcp/oauth`);
  const rs = await oauth.processResourceDiscoveryResponse(resourceUrl, await oauth.resourceDiscoveryRequest(resourceUrl, insecure));
  const issuer = new URL(rs.authorization_servers![0]!);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  return { as, resource: rs.resource };
}

export async function registerClient(as: oauth.AuthorizationServer, metadata: Partial<oauth.Client> & { redirect_uris: string[] }): Promise<oauth.Client> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: 'Test Assistant', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...metadata },
    insecure,
  );
  return oauth.processDynamicClientRegistrationResponse(response);
}

export type AuthorizationRequest = {
  redirectUri: string;
  verifier: string;
  state: string;
  url: URL;
};

/** The authorization URL a client sends the person to; `params` overrides or adds parameters (undefined removes one). */
export async function authorizationRequest(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  resource: string,
  params: Record<string, string | undefined> = {},
): Promise<AuthorizationRequest> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = (client.redirect_uris as string[])[0]!;
  const url = new URL(as.authorization_endpoint!);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource,
    ...params,
  };
  for (const [key, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(key, value);
  return { redirectUri: all.redirect_uri ?? redirectUri, verifier, state, url };
}

/** A browser without a browser: follows redirects by hand and keeps cookies (all of one origin). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  post(url: string | URL, form: Record<string, string>): Promise<Response> {
    return this.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  }
}

/** Follows same-origin redirects until one leaves the origin (the client's redirect URI) or a page answers. */
export async function follow(jar: CookieJar, start: Response, origin: string): Promise<{ response: Response; url: string }> {
  let response = start;
  let url = '';
  for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops += 1) {
    url = new URL(response.headers.get('location')!, origin).href;
    if (!url.startsWith(origin + '/')) return { response, url };
    response = await jar.fetch(url);
  }
  return { response, url };
}

export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no hidden field ${name} in page`);
  return match[1]!;
}

/**
 * The person's side of the consent page, driven over HTTP: opens the authorization URL, asks for
 * a code for `email`, reads it from the captured mail and submits it. Returns the URL the server
 * finally sends the browser to (the client's redirect URI with code or error).
 */
export async function consentOverHttp(t: TestApp, request: AuthorizationRequest, email: string, jar = new CookieJar(), teams: readonly string[] = []): Promise<URL> {
  const origin = new URL(request.url).origin;
  const opened = await follow(jar, await jar.fetch(request.url), origin);
  if (opened.response.status !== 200) throw new Error(`consent page did not open: ${opened.response.status} ${opened.url}`);
  const consentUrl = opened.url;
  await opened.response.text();
  const before = t.smtp.messages.length;
  const codePage = await jar.post(`${consentUrl}/email`, { email });
  const html = await codePage.text();
  if (codePage.status !== 200) throw new Error(`email step failed: ${codePage.status}`);
  const code = await t.smtp.codeFor(email, before);
  let confirmed = await jar.post(`${consentUrl}/confirm`, { verification_event_id: hiddenField(html, 'verification_event_id'), code, email });
  if (confirmed.status === 200) {
    // A person in teams is asked which of them the connector may act for: tick `teams` (ids).
    const page = await confirmed.text();
    const form = new URLSearchParams({ grant_id: hiddenField(page, 'grant_id') });
    for (const team of teams) form.append('team', team);
    confirmed = await jar.fetch(`${consentUrl}/teams`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  }
  const done = await follow(jar, confirmed, origin);
  if (!done.url || done.url.startsWith(origin + "/")) throw new Error(`consent did not return to the client: ${done.response.status} ${done.url} ${(await done.response.text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").slice(0, 600)}`);
  return new URL(done.url);
}

export async function exchangeCode(d: Discovered, client: oauth.Client, request: AuthorizationRequest, callback: URL, options: { verifier?: string; resource?: string } = {}): Promise<Response> {
  const params = oauth.validateAuthResponse(d.as, client, callback, request.state);
  return oauth.authorizationCodeGrantRequest(d.as, client, oauth.None(), params, request.redirectUri, options.verifier ?? request.verifier, {
    additionalParameters: { resource: options.resource ?? d.resource },
    ...insecure,
  });
}

export async function tokens(d: Discovered, client: oauth.Client, response: Response): Promise<oauth.TokenEndpointResponse> {
  return oauth.processAuthorizationCodeResponse(d.as, client, response);
}

export function refresh(d: Discovered, client: oauth.Client, refreshToken: string, additionalParameters: Record<string, string> = {}): Promise<Response> {
  return oauth.refreshTokenGrantRequest(d.as, client, oauth.None(), refreshToken, { additionalParameters: { resource: d.resource, ...additionalParameters }, ...insecure });
}

/** The token endpoint's error answer (status and `error`), for refusals. */
export async function tokenError(response: Response): Promise<{ status: number; error: string }> {
  const body = (await response.json()) as { error: string };
  return { status: response.status, error: body.error };
}

/**
 * An MCP SDK OAuth client provider that keeps everything in memory and "redirects" by recording the
 * URL (the test then consents over HTTP or in Chromium): what hosted assistants build around auth().
 */
export function memoryOAuthProvider(options: { redirectUrl: string; clientName: string; clientId?: string; clientMetadataUrl?: string; tokens?: OAuthTokens }) {
  const state = {
    registrations: [] as OAuthClientInformationMixed[],
    authorizations: [] as URL[],
    tokens: options.tokens,
    verifier: '',
    client: options.clientId ? ({ client_id: options.clientId } as OAuthClientInformationMixed) : undefined,
  };
  const provider: OAuthClientProvider = {
    redirectUrl: options.redirectUrl,
    ...(options.clientMetadataUrl ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    clientMetadata: { client_name: options.clientName, redirect_uris: [options.redirectUrl], token_endpoint_auth_method: 'none' },
    clientInformation: () => state.client,
    saveClientInformation: (information) => {
      state.registrations.push(information);
      state.client = information;
    },
    tokens: () => state.tokens,
    saveTokens: (tokens) => void (state.tokens = tokens),
    redirectToAuthorization: (url) => void state.authorizations.push(url),
    saveCodeVerifier: (value) => void (state.verifier = value),
    codeVerifier: () => state.verifier,
  };
  return { provider, state };
}

/**
 * Client ID Metadata Documents served over https on 127.0.0.1 (a certificate made here, for the
 * service to trust through OAUTH_CLIENT_METADATA_CA_FILE): `publish` puts a document at a path and
 * answers its URL, the client id.
 */
export async function startClientMetadataServer(redirectUri: string): Promise<{
  base: string;
  /** The certificate's PEM file (OAUTH_CLIENT_METADATA_CA_FILE). */
  cert: string;
  /** Requests the server answered so far. */
  fetched: () => number;
  publish: (file: string, extra?: Record<string, unknown>) => string;
  stop: () => Promise<void>;
}> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-cimd-'));
  const key = path.join(folder, 'key.pem');
  const cert = path.join(folder, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const served = new Map<string, Record<string, unknown>>();
  let fetched = 0;
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    const document = served.get(req.url ?? '');
    fetched += 1;
    if (!document) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    cert,
    fetched: () => fetched,
    publish: (file, extra = {}) => {
      const clientId = `${base}${file}`;
      served.set(file, {
        client_id: clientId,
        client_name: 'Metadata Assistant',
        client_uri: 'https://assistant.example/about',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        ...extra,
      });
      return clientId;
    },
    stop: async () => {
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
