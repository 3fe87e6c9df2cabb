import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Principal } from '../domain/identity/principal.js';
import { madeOnFirstUse } from '../domain/shared/first-use.js';
import type { McpFacadeDeps } from './transport.js';

/**
 * The MCP facade as the service mounts it: the SDK, the tools and their schemas (zod v3 and v4-mini
 * among them) load with the first MCP request, not with the service: an instance no assistant calls
 * never holds them in memory. A failed load is tried again by the next request.
 */
export function mcpOnFirstUse(deps: McpFacadeDeps): {
  /** `/mcp` (the router takes no other path: /mcp/diagnostics and /mcp/oauth belong to other routers). */
  router: RequestHandler;
  /** `/mcp/oauth`'s MCP side, for a caller the OAuth check resolved. */
  authenticatedHandler: (req: Request, res: Response, principal: Principal) => Promise<void>;
  diagnostics: (options: { authModes: string[] }) => Promise<Record<string, unknown>>;
} {
  const facade = madeOnFirstUse(() => import('./index.js'));
  const router = madeOnFirstUse(async () => (await facade()).createMcpFacade(deps));
  const authenticated = madeOnFirstUse(async () => (await facade()).mcpAuthenticatedHandler(deps));
  return {
    router: (req: Request, res: Response, next: NextFunction) => {
      // As express matches the router's own '/mcp' (case-insensitively, with or without a trailing slash).
      const path = req.path.toLowerCase();
      if (path !== '/mcp' && path !== '/mcp/') return next();
      router().then((handler) => handler(req, res, next), next);
    },
    authenticatedHandler: async (req, res, principal) => (await authenticated())(req, res, principal),
    diagnostics: async (options) => (await facade()).mcpDiagnostics({ ...options, secretInputs: deps.secretInputPolicy }),
  };
}
