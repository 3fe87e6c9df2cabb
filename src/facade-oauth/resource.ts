import express, { type Request, type Response } from 'express';
import type { CredentialResolverChain } from '../domain/identity/credential-resolver.js';
import type { Principal } from '../domain/identity/principal.js';
import { DomainError } from '../domain/shared/errors.js';

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
 * `/mcp/oauth`: authentication completes at transport level, before any JSON-RPC message (so
 * before `initialize`). No or a bad token answers 401 with the RFC 9728 pointer
 * (`WWW-Authenticate: Bearer resource_metadata="…"`) that MCP clients follow to the authorization server.
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
        const challenge = [`Bearer resource_metadata="${options.resourceMetadataUrl}"`];
        if (outcome.error === 'invalid_token') challenge.push('error="invalid_token"', 'error_description="The access token is invalid, expired, revoked or for another resource"');
        res.setHeader('WWW-Authenticate', challenge.join(', '));
        res.setHeader('Cache-Control', 'no-store');
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
