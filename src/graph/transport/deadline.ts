import type { NextFunction, Request, Response } from 'express';

/** How long a client is told to wait before trying again after a missed deadline. */
export const DEADLINE_RETRY_AFTER_SECONDS = 5;

/** What a client is told when its request missed the deadline. */
export const DEADLINE_MESSAGE = 'The service could not answer in time; try again shortly';

/**
 * A deadline for every request on an HTTP API: a request still unanswered after `seconds` (its
 * database frozen, say: a server that answers nothing ends no statement) gets `refuse`'s answer (503
 * `unavailable` with Retry-After, in the route's own error shape), and whatever the request would
 * have written later is dropped. The work itself is not undone: a write may still commit after the
 * 503, and a retry with the same Idempotency-Key answers its result.
 */
export function requestDeadline(seconds: number, refuse: (res: Response) => void): (req: Request, res: Response, next: NextFunction) => void {
  return (_req, res, next) => {
    const timer = setTimeout(() => {
      if (res.headersSent || res.writableEnded) return;
      refuse(res);
      // The late answer goes nowhere (and raises nothing: its headers are already sent).
      Object.assign(res, { setHeader: () => res, writeHead: () => res, write: () => true, end: () => res });
    }, seconds * 1000);
    timer.unref();
    res.once('finish', () => clearTimeout(timer));
    res.once('close', () => clearTimeout(timer));
    next();
  };
}
