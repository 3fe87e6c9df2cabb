/**
 * What the client throws, as Stripe's and Octokit's clients do: an error answer is a
 * `RecordSigningError` carrying the status, the service's `error_code`, the request id and the
 * response; a request that never got an answer is a `RecordSigningConnectionError`.
 */
import type { components } from './generated/openapi.js';

type Schemas = components['schemas'];

/** An error answer's body: the service's error shape, or a 422's list of issues. */
export type ErrorBody = Schemas['ErrorResponse'] | Schemas['HTTPValidationError'];

/** An answer outside 2xx. `body` is the parsed JSON the service sent (or its text, from something in front of it). */
export class RecordSigningError extends Error {
  /** The service's `error_code` (`not_found`, `stale_version`, `rate_limited`, ...); a 422 has none, its `issues` say what. */
  readonly code: string | undefined;
  /** The answer's `X-Request-Id`, under which the service logged the request: quote it when reporting a problem. */
  readonly requestId: string | null;
  /** A 422's issues, each with where (`['body', 'title']`) and what; empty otherwise. */
  readonly issues: { loc: (string | number)[]; msg: string; type: string }[];
  constructor(
    readonly response: Response,
    readonly body: ErrorBody | string | undefined,
  ) {
    const fields = (typeof body === 'object' && body !== null ? body : {}) as { detail?: unknown; error_code?: unknown };
    const code = typeof fields.error_code === 'string' ? fields.error_code : undefined;
    const detail = typeof fields.detail === 'string' ? fields.detail : JSON.stringify(body ?? response.statusText);
    super(`${response.status}${code ? ` ${code}` : ''}: ${detail}`);
    this.name = new.target.name;
    this.code = code;
    this.requestId = response.headers.get('x-request-id');
    this.issues = Array.isArray(fields.detail) ? (fields.detail as RecordSigningError['issues']) : [];
  }

  get status(): number {
    return this.response.status;
  }
}

/** A `401`: the credentials are missing, unknown, revoked or expired. */
export class AuthenticationError extends RecordSigningError {}

/**
 * A `401` while the client's access token is past its expiry (known from `signIn`, or given as
 * `tokenExpiresAt`). The service issues no refresh tokens: a new token takes a new mailed code.
 */
export class TokenExpiredError extends AuthenticationError {}

/** No answer: the connection failed (refused, reset, a DNS failure) on every attempt the client made. */
export class RecordSigningConnectionError extends Error {
  readonly method: string;
  readonly url: string;
  constructor(
    request: Request,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`${request.method} ${request.url}: no answer after ${attempts} attempt${attempts === 1 ? '' : 's'} (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = 'RecordSigningConnectionError';
    this.method = request.method;
    this.url = request.url;
  }
}
