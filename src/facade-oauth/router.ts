import express, { type NextFunction, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import type { Config } from '../config.js';
import type { Logger } from 'pino';
import type { ConnectorTokenLookup } from '../domain/identity/credential-resolver.js';
import { CONNECTOR_SCOPES, type ConnectorGrants } from '../domain/identity/connector-grants.js';
import type { OAuthPayloadStore } from '../domain/identity/oauth-storage.js';
import type { ClientLimits } from '../domain/shared/client-limits.js';
import { DomainError } from '../domain/shared/errors.js';
import { madeOnFirstUse } from '../domain/shared/first-use.js';
import { API_KEY_SCOPES } from '../domain/vocabulary.js';
import { noInstruments, type Instruments } from '../domain/shared/instruments.js';
import { consentRouter } from './consent.js';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  authorizationServerMetadata,
  CONNECTOR_RESOURCE_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
} from './metadata.js';
import { CONSENT_STYLESHEET, CONSENT_STYLESHEET_PATH, renderErrorPage } from './pages.js';
import { OAUTH_MOUNT, OAUTH_ROUTES } from './paths.js';
import { announcesMoreThan, BODY_LIMITS, boundedBody, refuseTooLarge, TOO_LARGE_MESSAGE } from '../graph/transport/body-limits.js';
import { CACHE_CONTROL } from '../domain/shared/cache-policy.js';

/** An OAuth endpoint's 413, in OAuth's error shape (RFC 6749 names no code of its own for it). */
const answerTooLarge = (res: Response) => res.status(413).json({ error: 'invalid_request', error_description: TOO_LARGE_MESSAGE });

export type OAuthServerDeps = {
  /** The service's public base URL: the issuer. */
  publicBaseUrl: string;
  consentTtlSeconds: number;
  clientMetadataDocuments: Config['oauth']['clientMetadataDocuments'];
  storage: OAuthPayloadStore;
  grants: ConnectorGrants;
  clientLimits: ClientLimits;
  logger: Logger;
  /** Tokens issued and refused, consents given and denied (metrics on). */
  instruments?: Instruments;
};

export type OAuthServer = {
  /** Mount at the root: both metadata documents, `/oauth/*` and the consent page. */
  router: express.Router;
  /** The `/mcp/oauth` resource URL every access token is bound to. */
  resource: string;
  /** The resource server's side: the access token behind a presented value, for the credential chain. */
  lookupAccessToken: ConnectorTokenLookup;
  /** The RFC 9728 document's URL, for `WWW-Authenticate: Bearer resource_metadata="…"`. */
  resourceMetadataUrl: string;
};

const DEFAULT_SCOPE = CONNECTOR_SCOPES.join(' ');

/**
 * The authorization server of hosted assistant connectors as an express router: a transport
 * adapter around oidc-provider (provider.ts); the rules of connections are the domain's
 * (ConnectorGrants).
 */
export function createOAuthServer(deps: OAuthServerDeps): OAuthServer {
  const issuer = deps.publicBaseUrl;
  const resource = `${issuer}${CONNECTOR_RESOURCE_PATH}`;
  // oidc-provider (with koa and jose) is loaded and configured at the first request that needs it:
  // an instance whose users never connect an assistant never holds it. Tried again after a failure.
  const instruments = deps.instruments ?? noInstruments;
  const provider = madeOnFirstUse(async () => {
    const { createAuthorizationServer } = await import('./provider.js');
    const created = await createAuthorizationServer(
      { issuer, resource, interactionTtlSeconds: deps.consentTtlSeconds, clientMetadataDocuments: deps.clientMetadataDocuments },
      deps.storage,
      deps.grants,
    );
    created.on('server_error', (_ctx, error) => deps.logger.error({ err: error }, 'authorization server error'));
    // The token endpoint's answers (every grant type: authorization code, refresh token).
    created.on('grant.success', () => instruments.oauth('token_issued'));
    created.on('grant.error', () => instruments.oauth('token_refused'));
    return created;
  });

  const router = express.Router();
  const noStore = (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', CACHE_CONTROL.secret);
    next();
  };
  // Public metadata, readable from any origin (browser-based clients discover the server too).
  const cors = (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    next();
  };
  router.get(AUTHORIZATION_SERVER_METADATA_PATH, cors, (_req, res) => void res.json(authorizationServerMetadata(issuer, deps.clientMetadataDocuments.enabled)));
  router.get(PROTECTED_RESOURCE_METADATA_PATH, cors, (_req, res) => void res.json(protectedResourceMetadata(issuer)));
  router.get(CONSENT_STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', CACHE_CONTROL.publicHour);
    res.type('text/css').send(CONSENT_STYLESHEET);
  });
  router.use(consentRouter({ provider, grants: deps.grants, resource, logger: deps.logger, instruments }));

  // Dynamic registration is open to anyone: limited per client network address.
  router.post(`${OAUTH_MOUNT}${OAUTH_ROUTES.registration}`, async (req, res, next) => {
    try {
      await deps.clientLimits.admit(req.ip, 'oauth_register');
      next();
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'rate_limited') return next(error);
      const retryAfter = error.details.retryAfterSeconds ?? 60;
      res.setHeader('Retry-After', String(retryAfter));
      res.status(429).json({ error: 'too_many_requests', error_description: error.message });
    }
  });
  // Registration metadata as oidc-provider is to read it (it uses a body already parsed):
  // - `scope`: any subset of the advertised scopes is accepted (the MCP SDK registers with all of
  //   `scopes_supported`). oidc-provider knows only its own `offline_access` (the record scopes are
  //   the resource's), so the record scopes are taken out of what it checks; what a connection may
  //   do is decided at consent from the authorization request, never by registration.
  // - `token_endpoint_auth_method` left out means `none`, said explicitly so that no client secret
  //   is ever generated, returned or stored for a client that could not use it.
  router.post(`${OAUTH_MOUNT}${OAUTH_ROUTES.registration}`, boundedBody(express.json, BODY_LIMITS.oauth, answerTooLarge), (req, res, next) => {
    const metadata = req.body as Record<string, unknown> | undefined;
    if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) {
      if (typeof metadata.scope === 'string') {
        const asked = metadata.scope.split(' ').filter(Boolean);
        if (asked.every((scope) => (CONNECTOR_SCOPES as readonly string[]).includes(scope))) {
          const own = asked.filter((scope) => scope === 'offline_access');
          if (own.length > 0) metadata.scope = own.join(' ');
          else delete metadata.scope;
        }
      }
      if (metadata.token_endpoint_auth_method === undefined) metadata.token_endpoint_auth_method = 'none';
      // Where codes may be sent: https, or http on a loopback address (a native client), never with credentials in the URL.
      const uris: unknown[] = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
      const refused = uris.find((uri) => typeof uri !== 'string' || !acceptableRedirect(uri));
      if (refused !== undefined) {
        res.status(400).json({ error: 'invalid_redirect_uri', error_description: 'redirect_uris must be https URLs, or http URLs on a loopback address, without user information' });
        return;
      }
    }
    next();
  });
  // A refresh is checked whole before oidc-provider consumes and rotates the refresh token (it checks
  // `resource` only after rotating): one malformed request must not end a connection.
  router.post(`${OAUTH_MOUNT}${OAUTH_ROUTES.token}`, boundedBody((options) => express.urlencoded({ ...options, extended: false }), BODY_LIMITS.oauth, answerTooLarge), (req, res, next) => {
    const form = req.body as Record<string, unknown> | undefined;
    if (form?.grant_type === 'refresh_token' && form.resource !== undefined && form.resource !== resource) {
      res.status(400).json({ error: 'invalid_target', error_description: `this server issues tokens for ${resource} only` });
      return;
    }
    next();
  });
  // A client that names no scope asks for the connector's whole grant (the spec's Authentication 7).
  // Every authorization shows the consent page (prompt=consent is what it is), which is also
  // OpenID's condition for keeping offline_access in the request.
  router.get(`${OAUTH_MOUNT}${OAUTH_ROUTES.authorization}`, (req, res, next) => {
    const url = new URL(req.originalUrl, 'http://local');
    // Refused before any consent page or mail, with an error page and never a redirect (as every
    // invalid request, provider.ts): oidc-provider would drop an unknown scope, and accept a response
    // mode the metadata does not advertise.
    const refusal = refusedAuthorization(url.searchParams);
    if (refusal) {
      res.setHeader('Cache-Control', CACHE_CONTROL.secret);
      res.status(400).type('html').send(renderErrorPage(refusal.error, refusal.description));
      return;
    }
    const before = url.search;
    if (!url.searchParams.has('scope')) url.searchParams.set('scope', DEFAULT_SCOPE);
    const prompts = (url.searchParams.get('prompt') ?? '').split(' ').filter(Boolean);
    if (!prompts.includes('none') && !prompts.includes('consent')) url.searchParams.set('prompt', [...prompts, 'consent'].join(' '));
    if (url.search !== before) req.url = req.originalUrl = `${OAUTH_MOUNT}${OAUTH_ROUTES.authorization}${url.search}`;
    next();
  });
  let callback: ReturnType<Provider['callback']> | null = null;
  router.use(OAUTH_MOUNT, noStore, (req, res, next) => {
    // Past oidc-provider's own limit: 413 at once, where oidc-provider would answer 400 and keep the connection.
    if (announcesMoreThan(req, BODY_LIMITS.oauthProvider)) return refuseTooLarge(res, answerTooLarge);
    // Forwarded headers count only from the proxies express trusts (loopback), like everywhere else.
    if (!isLoopback(req.socket.remoteAddress)) {
      for (const header of ['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for']) delete req.headers[header];
    }
    provider().then((loaded) => void (callback ??= loaded.callback())(req, res), next);
  });

  return {
    router,
    resource,
    resourceMetadataUrl: `${issuer}${PROTECTED_RESOURCE_METADATA_PATH}`,
    lookupAccessToken: accessTokenLookup(provider),
  };
}

function accessTokenLookup(provider: () => Promise<Provider>): ConnectorTokenLookup {
  return async (value) => {
    // Opaque tokens are oidc-provider's (43 url-safe characters); anything else is not one of ours.
    if (!/^[A-Za-z0-9_-]{20,128}$/.test(value)) return null;
    const token = await (await provider()).AccessToken.find(value);
    if (!token || token.isExpired || !token.grantId || !token.clientId) return null;
    const audience = token.aud === undefined ? [] : Array.isArray(token.aud) ? token.aud : [token.aud];
    return { grantId: token.grantId, clientId: token.clientId, scopes: [...token.scopes], audience: audience.map(String) };
  };
}

/** What makes an authorization request invalid before oidc-provider sees it: a scope or response mode this server does not offer. */
function refusedAuthorization(params: URLSearchParams): { error: string; description: string } | null {
  const mode = params.get('response_mode');
  if (mode !== null && mode !== 'query') return { error: 'invalid_request', description: `response_mode ${mode} is not supported: this server answers in the query only` };
  const scope = params.get('scope');
  if (scope === null) return null;
  const asked = scope.split(' ').filter(Boolean);
  const unknown = asked.filter((name) => !(CONNECTOR_SCOPES as readonly string[]).includes(name));
  if (unknown.length > 0) return { error: 'invalid_scope', description: `Unknown scope ${unknown.join(' ')}: this server offers ${DEFAULT_SCOPE}` };
  if (!asked.some((name) => (API_KEY_SCOPES as readonly string[]).includes(name))) {
    return { error: 'invalid_scope', description: `The request asks for no permission on records: name at least one of ${API_KEY_SCOPES.join(' ')}` };
  }
  return null;
}

function acceptableRedirect(uri: string): boolean {
  const url = URL.parse(uri);
  if (!url || url.username || url.password) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}
