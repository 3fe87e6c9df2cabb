import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { DomainErrorCode, ValidationIssue } from '../domain/shared/errors.js';
import { DOMAIN_HTTP_STATUS } from '../graph/errors.js';
import { snakeCase } from '../graph/transport/case.js';
import { operationFailure, type OperationFailure } from '../graph/transport/failure.js';

/** Failures that only HTTP knows: the request never reached an operation, or something broke. */
type HttpOnlyErrorCode = 'malformed_request' | 'method_not_allowed' | 'payload_too_large' | 'unsupported_media_type' | 'internal_error';

export type RestErrorCode = DomainErrorCode | HttpOnlyErrorCode;

/** The REST status table: the domain codes' HTTP statuses, plus the codes only HTTP parsing raises. */
const STATUS: Record<RestErrorCode, number> = {
  ...DOMAIN_HTTP_STATUS,
  malformed_request: 400,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
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

export function restError(code: RestErrorCode, detail: string, extra: { retryAfterSeconds?: number; requiredScopes?: string[] } = {}): RestError {
  const status = STATUS[code];
  const body: Record<string, unknown> = { detail: status === 500 ? 'Internal server error' : detail, error_code: status === 500 ? 'internal_error' : code };
  const headers: Record<string, string> = {};
  if (extra.requiredScopes) body.required_scopes = extra.requiredScopes;
  // 429, and a 409 that says when to look again (an artifact still being made).
  if (status === 429 || extra.retryAfterSeconds !== undefined) {
    const seconds = Math.max(1, Math.ceil(extra.retryAfterSeconds ?? 1));
    body.retry_after_seconds = seconds;
    headers['Retry-After'] = String(seconds);
  }
  return { status, body, headers };
}

/** Domain input fields that REST carries in the URL path. */
const PATH_FIELDS = new Set(['methodType']);

/** A domain validation issue as a REST 422 names it: its location first, field names in snake_case. */
export function issueItem(issue: ValidationIssue, location: IssueLocation): ValidationErrorItem {
  return {
    loc: [PATH_FIELDS.has(String(issue.path[0])) ? 'path' : location, ...issue.path.map((part) => (typeof part === 'string' ? snakeCase(part) : part))],
    msg: issue.message,
    type: issue.type,
  };
}

/** Maps a failed operation (GraphQL error or domain error) to the REST contract. */
export function restErrorFromFailure(failure: OperationFailure, location: IssueLocation): RestError {
  if (failure.code === 'validation_error') {
    if (failure.issues.length === 0) return validationError([{ loc: [location], msg: failure.message, type: 'value_error' }]);
    return validationError(failure.issues.map((issue) => issueItem(issue, location)));
  }
  return restError(failure.code, failure.message, failure);
}

export function sendRestError(res: Response, error: RestError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(error.body);
}

/** Body-parser failures (malformed JSON) in the REST error shape; never a stack trace. */
export function restErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: { type?: string }, _req, res, _next) => {
    if (error.type === 'entity.parse.failed') sendRestError(res, restError('malformed_request', 'Malformed JSON body'));
    else {
      // An error that escaped an operation because the database is unreachable (a credential lookup, say): 503.
      const failure = operationFailure(error);
      if (failure?.code === 'unavailable') {
        logger.warn({ err: error }, 'database unavailable');
        sendRestError(res, restErrorFromFailure(failure, 'body'));
        return;
      }
      logger.error({ err: error }, 'unhandled request error');
      sendRestError(res, restError('internal_error', 'Internal server error'));
    }
  };
}
