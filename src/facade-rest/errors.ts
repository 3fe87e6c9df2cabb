import type { GraphQLFormattedError } from 'graphql';
import type { ValidationIssue } from '../domain/shared/errors.js';
import { snakeCase } from './case.js';

/** The one table from domain error codes to HTTP statuses. */
const STATUS: Record<string, number> = {
  malformed_request: 400,
  unauthenticated: 401,
  bearer_required: 403,
  missing_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_transition: 409,
  stale_version: 409,
  conflict: 409,
  contact_point_conflict: 409,
  signature_incomplete: 409,
  counter_active: 409,
  acknowledgement_required: 409,
  validation_error: 422,
  rate_limited: 429,
  not_implemented: 501,
  internal_error: 500,
};

export type RestError = {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
};

export type IssueLocation = 'body' | 'query' | 'path';

export type ValidationErrorItem = { loc: (string | number)[]; msg: string; type: string };

export function validationError(detail: ValidationErrorItem[]): RestError {
  return { status: 422, body: { detail }, headers: {} };
}

export function restError(code: string, detail: string, extra: { retryAfterSeconds?: number; requiredScopes?: string[] } = {}): RestError {
  const status = STATUS[code] ?? 500;
  const body: Record<string, unknown> = { detail: status === 500 ? 'Internal server error' : detail, error_code: status === 500 ? 'internal_error' : code };
  const headers: Record<string, string> = {};
  if (extra.requiredScopes) body.required_scopes = extra.requiredScopes;
  if (status === 429) {
    const seconds = Math.max(1, Math.ceil(extra.retryAfterSeconds ?? 1));
    body.retry_after_seconds = seconds;
    headers['Retry-After'] = String(seconds);
  }
  return { status, body, headers };
}

/** Domain input fields that REST carries in the URL path. */
const PATH_FIELDS = new Set(['methodType']);

/** Maps the first GraphQL error of an in-process operation to the REST contract. */
export function restErrorFromGraph(error: GraphQLFormattedError, location: IssueLocation): RestError {
  const extensions = error.extensions ?? {};
  const code = typeof extensions.code === 'string' ? extensions.code : 'internal_error';
  if (code === 'validation_error') {
    const issues = (extensions.issues as ValidationIssue[] | undefined) ?? [];
    if (issues.length === 0) return validationError([{ loc: [location], msg: error.message, type: 'value_error' }]);
    return validationError(
      issues.map((issue) => ({
        loc: [PATH_FIELDS.has(String(issue.path[0])) ? 'path' : location, ...issue.path.map((part) => (typeof part === 'string' ? snakeCase(part) : part))],
        msg: issue.message,
        type: issue.type,
      })),
    );
  }
  return restError(code, error.message, {
    retryAfterSeconds: typeof extensions.retryAfterSeconds === 'number' ? extensions.retryAfterSeconds : undefined,
    requiredScopes: Array.isArray(extensions.requiredScopes) ? (extensions.requiredScopes as string[]) : undefined,
  });
}
