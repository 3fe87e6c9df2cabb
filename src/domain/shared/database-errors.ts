import { DomainError } from './errors.js';

/** SQLSTATE classes and driver messages that mean the connection itself is gone. */
const CONNECTION_LOST_STATES = /^(08|57P)/;
const CONNECTION_LOST_MESSAGES = /not queryable|Connection terminated|ECONNRESET|EPIPE/;

/**
 * Whether an error means the database cannot be reached or did not answer in time (refused or lost
 * connections, the pool's acquire timeout, the client's query timeout, a server starting or
 * stopping): the request may be retried, and the answer is 503 `unavailable`, never 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isConnectionLost(error)) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^(ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|53300)$/.test(code)) return true;
  // pg's own timeouts carry no code: the pool's acquire timeout, and the client's query timeout.
  return typeof message === 'string' && /timeout exceeded when trying to connect|Query read timeout/.test(message);
}

/** The domain error a request gets when the database is unavailable: retry in a few seconds. */
export function databaseUnavailable(): DomainError {
  return new DomainError('unavailable', 'The service cannot reach its database right now; try again shortly', { retryAfterSeconds: 5 });
}

export function isConnectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && CONNECTION_LOST_STATES.test(code)) || (typeof message === 'string' && CONNECTION_LOST_MESSAGES.test(message));
}
