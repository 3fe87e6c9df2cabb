import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { ApolloServerPlugin } from '@apollo/server';
import type { Logger } from 'pino';
import { DomainError, type DomainErrorCode } from '../domain/shared/errors.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../domain/shared/database-errors.js';
import { noInstruments, type Instruments } from '../domain/shared/instruments.js';

/**
 * The HTTP status of each domain code, for every HTTP transport (REST extends it with its own codes).
 * `extensions.code` in GraphQL is always the domain code itself (the same word REST sends as
 * `error_code`). Keyed by every domain code, so a new code that is not mapped fails the type check.
 */
export const DOMAIN_HTTP_STATUS: Readonly<Record<DomainErrorCode, number>> = {
  validation_error: 422,
  unauthenticated: 401,
  bearer_required: 403,
  missing_scope: 403,
  forbidden: 403,
  not_found: 404,
  invalid_transition: 409,
  stale_version: 409,
  conflict: 409,
  contact_point_conflict: 409,
  signature_incomplete: 409,
  counter_active: 409,
  acknowledgement_required: 409,
  artifact_pending: 409,
  idempotency_key_in_use: 409,
  rate_limited: 429,
  not_implemented: 501,
  unavailable: 503,
};

/**
 * The status of a GraphQL request that fails before any operation runs (presented but invalid
 * credentials while building the context); GraphQL over HTTP refuses bad requests with 400, not 422.
 */
const REQUEST_STATUS: Record<DomainErrorCode, number> = { ...DOMAIN_HTTP_STATUS, validation_error: 400 };

/** The extensions a client needs to recover: the code, and the details that apply. */
function extensionsOf(error: DomainError): Record<string, unknown> {
  return {
    code: error.code,
    ...(error.details.issues ? { issues: error.details.issues } : {}),
    ...(error.details.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.details.retryAfterSeconds } : {}),
    ...(error.details.requiredScopes ? { requiredScopes: error.details.requiredScopes } : {}),
  };
}

/** A domain error raised outside execution (context building), with its HTTP status. */
export function requestGraphError(error: DomainError): GraphQLError {
  const wait = error.details.retryAfterSeconds;
  const headers = wait === undefined ? undefined : new Map([['retry-after', String(Math.max(1, Math.ceil(wait)))]]);
  return new GraphQLError(error.message, { extensions: { ...extensionsOf(error), http: { status: REQUEST_STATUS[error.code], ...(headers ? { headers } : {}) } } });
}

/**
 * An answer whose errors say when to try again (`retryAfterSeconds`: the database away, a rate
 * limit) carries it as `Retry-After` too, as REST's does: clients and proxies read the header.
 */
export const retryAfterPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const waits = (response.body.singleResult.errors ?? []).map((e) => e.extensions?.retryAfterSeconds).filter((n): n is number => typeof n === 'number');
        if (waits.length > 0) response.http.headers.set('retry-after', String(Math.max(1, Math.ceil(Math.max(...waits)))));
      },
    };
  },
};

/**
 * The one place where domain errors become GraphQL errors (over HTTP, graphql-ws and in-process).
 * Anything unexpected is logged and masked as `internal_error`. Each error answered is counted by
 * its code (`rss_errors_total`).
 */
export function formatGraphError(logger: Logger, instruments: Instruments = noInstruments) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const answered = formatOne(logger, formatted, error);
    const code = answered.extensions?.code;
    instruments.errorAnswered(typeof code === 'string' ? code : 'internal_error');
    return answered;
  };
}

function formatOne(logger: Logger, formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const resolved = unwrapResolverError(error);
  // A transport's own refusal (graphql-ws's budget) carries its domain error without a path.
  const unwrapped = resolved instanceof GraphQLError && resolved.originalError instanceof DomainError ? resolved.originalError : resolved;
  const cause = unwrapped instanceof GraphQLError ? (unwrapped.originalError ?? unwrapped) : unwrapped;
  const unavailable = isDatabaseUnavailable(cause);
  if (unavailable) logger.warn({ err: cause }, 'database unavailable');
  const original = unavailable ? databaseUnavailable() : unwrapped;
  if (original instanceof DomainError) {
    return { message: original.message, path: formatted.path, locations: formatted.locations, extensions: extensionsOf(original) };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
    // Parse, validation and variable errors from graphql-js itself: the caller's mistake, not the service's.
    logger.debug({ code, message: formatted.message }, 'graphql request refused');
    return { ...formatted, extensions: { code: code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED' ? 'validation_error' : code.toLowerCase() } };
  }
  logger.error({ err: original instanceof GraphQLError ? original.originalError ?? original : original }, 'unexpected error');
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'internal_error' } };
}
