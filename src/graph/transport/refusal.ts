import type { Response } from 'express';

/**
 * A `/graphql` request refused before any operation ran, in GraphQL's error shape: `errors` with the
 * message and `extensions` (the code, and `retryAfterSeconds` when waiting helps, also sent as
 * Retry-After). The one place the HTTP transport's own refusals are written.
 */
export function sendGraphqlRefusal(res: Response, status: number, message: string, extensions: { code: string; retryAfterSeconds?: number }): void {
  if (extensions.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(extensions.retryAfterSeconds));
  res.status(status).json({ errors: [{ message, extensions }] });
}
