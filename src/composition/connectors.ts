import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { apiKeyResolver, connectorTokenResolver, CredentialResolverChain } from '../domain/identity/credential-resolver.js';
import type { Clock } from '../domain/shared/clock.js';
import type { McpFacadeDeps } from '../facade-mcp/index.js';
import { mcpOnFirstUse } from '../facade-mcp/on-first-use.js';
import { ICON_PATH } from '../brand-icon.js';
import { CONNECTOR_RESOURCE_PATH } from '../facade-oauth/metadata.js';
import { connectorAuthenticator, connectorResourceRouter } from '../facade-oauth/resource.js';
import { createOAuthServer } from '../facade-oauth/router.js';
import type { GraphExecutor } from '../graph/executor.js';
import type { Services } from './services.js';

/**
 * The assistants' ways in: the OAuth authorization server for hosted connectors (metadata, /oauth/*,
 * the consent page) with `/mcp/oauth`, whose chain holds only the connector resolver (and no other
 * chain holds it), and `/mcp`, whose bearer is an API key or a manual MCP token (accepted nowhere
 * else), or, without one, the session's grant. Both serve the same tools, loaded on first use.
 */
export function mountConnectors(
  app: Express,
  server: Server,
  deps: { config: Config; services: Services; executor: GraphExecutor; orm: MikroORM; clock: Clock; logger: Logger },
) {
  const { config, services, executor, orm, clock, logger } = deps;
  const oauthServer = createOAuthServer({
    publicBaseUrl: config.publicBaseUrl,
    consentTtlSeconds: config.oauth.consentTtlSeconds,
    clientMetadataDocuments: config.oauth.clientMetadataDocuments,
    storage: services.oauth.storage,
    grants: services.oauth.grants,
    clientLimits: services.clientLimits,
    logger,
    instruments: services.instruments,
  });
  const connectorAuth = connectorAuthenticator(
    new CredentialResolverChain([connectorTokenResolver(oauthServer.lookupAccessToken, services.oauth.grants, oauthServer.resource)]),
  );
  const mcpCredentialChain = new CredentialResolverChain([services.mcp.grants.tokenResolver(), apiKeyResolver(orm, clock)]);
  const boundPort = () => (server.address() as AddressInfo | null)?.port ?? config.port;
  const publicBase = new URL(config.publicBaseUrl);
  const mcpDeps: McpFacadeDeps = {
    executor,
    sessions: services.mcp.sessions,
    events: services.mcp.events,
    confirmations: services.mcp.confirmations,
    authenticate: (credentials) => mcpCredentialChain.authenticate(credentials),
    sessionPrincipal: (sessionKey) => services.mcp.grants.forSession(sessionKey),
    allowedHosts: () => config.mcp.allowedHosts ?? [publicBase.hostname, 'localhost', '127.0.0.1', '[::1]'],
    allowedOrigins: () =>
      config.mcp.allowedOrigins ?? [publicBase.origin, ...['localhost', '127.0.0.1', '[::1]'].map((host) => `http://${host}:${boundPort()}`)],
    jsonResponse: config.mcp.jsonResponse,
    secretInputPolicy: config.mcp.secretInput,
    publicBaseUrl: config.publicBaseUrl,
    iconUrl: new URL(ICON_PATH, publicBase).href,
    connectorResourceMetadataUrl: oauthServer.resourceMetadataUrl,
    connectorAskedForMoreScope: (grantId) => services.oauth.grants.askedForMoreScope(grantId),
    logger,
    instruments: services.instruments,
  };
  const mcp = mcpOnFirstUse(mcpDeps);
  app.use(oauthServer.router);
  // /mcp/oauth: the OAuth token check first (401 + resource metadata before any message), then the same MCP tools as /mcp.
  app.use(
    connectorResourceRouter({
      path: CONNECTOR_RESOURCE_PATH,
      resourceMetadataUrl: oauthServer.resourceMetadataUrl,
      authenticate: connectorAuth,
      handler: mcp.authenticatedHandler,
    }),
  );
  return { connectorAuth, mcp };
}
