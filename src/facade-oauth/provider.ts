import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import {
  CONNECTOR_ACCESS_TOKEN_TTL_SECONDS,
  CONNECTOR_GRANT_TTL_SECONDS,
  type ConnectorGrants,
} from '../domain/identity/connector-grants.js';
import type { OAuthPayloadStore } from '../domain/identity/oauth-storage.js';
import { API_KEY_SCOPES } from '../domain/vocabulary.js';
import { postgresAdapter } from './adapter.js';
import { clientMetadataFetch } from './client-metadata-fetch.js';
import { renderErrorPage } from './pages.js';
import { CONSENT_PATH, OAUTH_ROUTES } from './paths.js';

export type OAuthServerSettings = {
  /** The issuer: the service's public base URL. */
  issuer: string;
  /** The one protected resource: `{base}/mcp/oauth`. */
  resource: string;
  /** How long the consent page stays valid (seconds). */
  interactionTtlSeconds: number;
  /** Client ID Metadata Documents (a client_id that is an https URL): on or off, and how they are fetched. */
  clientMetadataDocuments: { enabled: boolean; allowedHosts: readonly string[]; ca: string | null };
};

const RECORD_SCOPES = API_KEY_SCOPES.join(' ');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The OAuth 2.1 authorization server of hosted assistant connectors, on oidc-provider (a certified
 * implementation): dynamic registration of public clients only, authorization code with PKCE S256
 * only, resource indicators (every access token is bound to `/mcp/oauth` and lasts one hour),
 * refresh tokens rotated on every use with reuse detection, and revocation. What this file
 * decides, oidc-provider leaves to the deployment: no browser login is ever reused, each consent
 * is a new grant, and no token outlives its 90-day grant.
 */
export async function createAuthorizationServer(settings: OAuthServerSettings, storage: OAuthPayloadStore, grants: ConnectorGrants): Promise<Provider> {
  // Shared by every instance: a consent page opened on one instance may be submitted to another.
  const cookieKeys = await storage.serverKey('cookie_keys', () => [randomBytes(32).toString('base64url')]);
  const signingKey = await storage.serverKey('signing_jwk', () => ({
    ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
    use: 'sig',
    alg: 'ES256',
  }));

  const policy = interactionPolicy.base();
  // A login happens in this very interaction or not at all: a session left in the browser by an
  // earlier consent never answers the next authorization request.
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('fresh_consent', 'every authorization asks for the email code again', (ctx) =>
      ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );

  const configuration: Configuration = {
    adapter: postgresAdapter(storage, grants),
    clients: [],
    cookies: { keys: cookieKeys, long: { signed: true, httpOnly: true, sameSite: 'lax' }, short: { signed: true, httpOnly: true, sameSite: 'lax' } },
    jwks: { keys: [signingKey] },
    // The record scopes belong to the resource (getResourceServerInfo); offline_access is the server's own.
    scopes: ['offline_access'],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    // Browser-based clients may call the token and revocation endpoints from their own redirect origin only.
    clientBasedCORS: (_ctx, origin, client) => (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    routes: OAUTH_ROUTES,
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // A client_id that is an https URL names its own metadata: fetched (clientMetadataFetch's rules),
      // cached by its HTTP cache headers (30 s to a day), its redirect_uris then checked as a registered
      // client's. Public clients only, as registration.
      clientIdMetadataDocument: {
        enabled: settings.clientMetadataDocuments.enabled,
        ack: 'draft-02',
        allowClient: (_ctx, client) => client.tokenEndpointAuthMethod === 'none',
        cacheDuration: { min: 30, max: 86_400 },
      },
      // A client revokes its own tokens only (a public client cannot prove more than its id).
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      introspection: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => settings.resource,
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx, resource) => {
          if (resource !== settings.resource) throw new errors.InvalidTarget(`this server issues tokens for ${settings.resource} only`);
          // At the token endpoint the grant is known: a connector that ended (disconnected,
          // revoked, past its 90 days by the service's clock) gets no new token.
          const grantId = ctx.oidc.entities.Grant?.jti;
          if (grantId && !(await grants.isActive(grantId))) throw new errors.InvalidGrant('the connection has ended');
          return { scope: RECORD_SCOPES, audience: settings.resource, accessTokenTTL: CONNECTOR_ACCESS_TOKEN_TTL_SECONDS, accessTokenFormat: 'opaque' };
        },
      },
    },
    ttl: {
      AccessToken: CONNECTOR_ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      Interaction: settings.interactionTtlSeconds,
      Session: settings.interactionTtlSeconds,
      Grant: CONNECTOR_GRANT_TTL_SECONDS,
      // A refresh token ends with its grant: rotation never moves the 90-day end.
      RefreshToken: (ctx: KoaContextWithOIDC) => {
        const grantEnd = ctx?.oidc?.entities.Grant?.exp;
        return typeof grantEnd === 'number' ? Math.max(grantEnd - nowSeconds(), 1) : CONNECTOR_GRANT_TTL_SECONDS;
      },
    },
    // Every refresh rotates; a rotated token used again revokes the grant (oidc-provider's reuse
    // detection). Asked before anything is consumed or saved: a connection that ended gets nothing.
    // The first refresh just after /mcp/oauth asked for more scope is refused, the refresh token left
    // usable: a refresh cannot widen the grant, and the MCP SDK, which refreshes first on a 403
    // insufficient_scope and would retry with the same scopes and give up, treats this error as a
    // reason to send the person to the authorization endpoint instead.
    rotateRefreshToken: async (ctx) => {
      const grantId = ctx.oidc.entities.Grant?.jti;
      if (!grantId || !(await grants.isActive(grantId))) throw new errors.InvalidGrant('the connection has ended');
      if (await grants.takeStepUp(grantId)) {
        throw new errors.ConsentRequired('this connection was asked for a scope it was not granted: send the person to the authorization endpoint; this refresh token stays usable');
      }
      return true;
    },
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    // Tokens live by their grant, never by the browser session that consented.
    expiresWithSession: () => false,
    // Revoking any token of a connection (the client disconnecting) ends the whole connection.
    revokeGrantPolicy: () => true,
    // Each consent makes a new grant; an earlier grant of the same client is never picked up.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // The identity is the connector's (it follows identity merges); the account id is a label only.
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { policy, url: (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}` },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = renderErrorPage(String(out.error), typeof out.error_description === 'string' ? out.error_description : undefined);
    },
    // The only fetch: Client ID Metadata Documents (no request objects, no sector identifiers, no jwks_uri).
    fetch: clientMetadataFetch(settings.clientMetadataDocuments),
    allowOmittingSingleRegisteredRedirectUri: false,
    enableHttpPostMethods: false,
  };

  const provider = new Provider(settings.issuer, configuration);
  // Behind a reverse proxy (trust proxy is the app's): the public base URL decides the endpoints.
  provider.proxy = true;
  // The authorization endpoint never sends the browser anywhere for a request it refuses (RFC 9700
  // section 4.11.2: no open redirector): anyone can register a redirect URI, so an invalid request
  // (plain or absent PKCE, another resource, a bad scope) gets an error page. Only a valid request
  // that the person acted on (consent or Deny, at the resume endpoint) goes back to the client.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' || ctx.path !== OAUTH_ROUTES.authorization || ctx.status !== 303) return;
    const location = ctx.response.get('location');
    const back = location ? URL.parse(location) : null;
    const error = back?.searchParams.get('error') ?? (back?.hash ? new URLSearchParams(back.hash.slice(1)).get('error') : null);
    if (!error) return;
    const description = back?.searchParams.get('error_description') ?? undefined;
    ctx.remove('location');
    ctx.status = 400;
    ctx.type = 'html';
    ctx.body = renderErrorPage(error, description);
  });
  return provider;
}
