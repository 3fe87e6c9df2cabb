import express, { type Request, type Response } from 'express';
import { CONNECTOR_SCOPES } from '../domain/identity/connector-grants.js';
import type { CredentialResolverChain } from '../domain/identity/credential-resolver.js';
import type { Principal } from '../domain/identity/principal.js';
import { DomainError } from '../domain/shared/errors.js';
import { CACHE_CONTROL } from '../domain/shared/cache-policy.js';

/** Turns the `Authorization` header of a `/mcp/oauth` request into its connector principal, or says why not. */
export type ConnectorAuthenticator = (authorization: string | undefined) => Promise<
  { ok: true; principal: Principal } | { ok: false; error: 'missing' | 'invalid_token' }
>;

/**
 * The seam between the OAuth side and the MCP facade: a bearer token to a principal through a
 * credential chain that holds only the connector resolver. An API key, a bearer session token or
 * a connector token for another resource is `invalid_token` here, as a connector token is
 * everywhere else (their chains do not hold the connector resolver).
 */
export function connectorAuthenticator(chain: CredentialResolverChain): ConnectorAuthenticator {
  return async (authorization) => {
    if (authorization === undefined) return { ok: false, error: 'missing' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return { ok: false, error: 'invalid_token' };
    try {
      const principal = await chain.authenticate({ bearer: match[1] });
      return principal ? { ok: true, principal } : { ok: false, error: 'invalid_token' };
    } catch (error) {
      if (error instanceof DomainError && error.code === 'unauthenticated') return { ok: false, error: 'invalid_token' };
      throw error;
    }
  };
}

/** What serves an authenticated `/mcp/oauth` request (the MCP facade's Streamable HTTP handler). */
export type ConnectorRequestHandler = (req: Request, res: Response, principal: Principal) => Promise<void>;

/**
 * What a connection asks for (MCP 2025-11-25: the 401 challenge carries the scope needed, and clients
 * ask for it): every record scope, for the tools need all five between them, and offline_access, so
 * that the connection outlives its first one-hour access token. The same as an authorization
 * request that names no scope.
 */
const CONNECTION_SCOPE = CONNECTOR_SCOPES.join(' ');

/**
 * `/mcp/oauth`: authentication completes at transport level, before any JSON-RPC message (so
 * before `initialize`). No or a bad token answers 401 with the RFC 9728 pointer and the scope to ask
 * for (`WWW-Authenticate: Bearer resource_metadata="…", scope="…"`) that MCP clients follow to the
 * authorization server.
 */
export function connectorResourceRouter(options: {
  path: string;
  resourceMetadataUrl: string;
  authenticate: ConnectorAuthenticator;
  handler: ConnectorRequestHandler;
}): express.Router {
  const router = express.Router();
  router.all(options.path, async (req, res, next) => {
    try {
      const outcome = await options.authenticate(req.headers.authorization);
      if (!outcome.ok) {
        const challenge = [`Bearer resource_metadata="${options.resourceMetadataUrl}"`, `scope="${CONNECTION_SCOPE}"`];
        if (outcome.error === 'invalid_token') challenge.push('error="invalid_token"', 'error_description="The access token is invalid, expired, revoked or for another resource"');
        res.setHeader('WWW-Authenticate', challenge.join(', '));
        res.setHeader('Cache-Control', CACHE_CONTROL.secret);
        res.status(401).json({
          jsonrpc: '2.0',
          error: { code: -32001, message: outcome.error === 'missing' ? 'Authentication required' : 'Invalid access token' },
          id: null,
        });
        return;
      }
      await options.handler(req, res, outcome.principal);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
