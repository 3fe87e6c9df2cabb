import type { IncomingMessage, ServerResponse } from 'node:http';
import { observeQuotas, rateLimitHeaders, type NamedQuota } from '../../domain/shared/quotas.js';

/**
 * Middleware for the routes an anonymous caller reaches (REST, /graphql, OAuth registration and
 * consent): the request is served while its quotas are observed, and the client's quotas counted
 * while serving it go out as RateLimit header fields with its answer, whatever its status. A request
 * that counted nothing (an authenticated call, a replayed idempotent answer) carries none.
 */
export function quotaHeaders(): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  return (_req, res, next) => {
    const quotas: NamedQuota[] = [];
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    // Every way of answering (res.json, res.end, an explicit writeHead) writes the head through here.
    res.writeHead = (...args: unknown[]) => {
      for (const [name, value] of Object.entries(rateLimitHeaders(quotas))) res.setHeader(name, value);
      return writeHead(...args);
    };
    observeQuotas(quotas, next);
  };
}
