import type { NextFunction, Request, Response } from 'express';

/** How long a client is told to wait before trying again after a missed deadline. */
const RETRY_AFTER_SECONDS = 5;

/**
 * A deadline for every request on an HTTP API: a request still unanswered after `seconds` (its
 * database frozen, say: a server that answers nothing ends no statement) gets 503 `unavailable` with
 * Retry-After in the route's own error shape, and whatever the request would have written later is
 * dropped. The work itself is not undone: a write may still commit after the 503, and a retry with
 * the same Idempotency-Key answers its result.
 */
export function requestDeadline(seconds: number, shape: 'rest' | 'graphql'): (req: Request, res: Response, next: NextFunction) => void {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent || res.writableEnded) return;
      const message = 'The service could not answer in time; try again shortly';
      const body =
        shape === 'rest'
          ? { detail: message, error_code: 'unavailable', retry_after_seconds: RETRY_AFTER_SECONDS }
          : { errors: [{ message, extensions: { code: 'unavailable', retryAfterSeconds: RETRY_AFTER_SECONDS } }] };
      const text = JSON.stringify(body);
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
      // The late answer goes nowhere (and raises nothing: its headers are already sent).
      Object.assign(res, { setHeader: () => res, writeHead: () => res, write: () => true, end: () => res });
    }, seconds * 1000);
    timer.unref();
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
