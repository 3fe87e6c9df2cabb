import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { Logger } from 'pino';
import { DomainError } from '../domain/shared/errors.js';

/**
 * The one place where domain errors become GraphQL errors: `extensions.code` is the domain code
 * (the same word REST sends as `error_code`), with the details a client needs to recover.
 * Anything unexpected is logged and masked as `internal_error`.
 */
export function formatGraphError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof DomainError) {
      return {
        message: original.message,
        path: formatted.path,
        locations: formatted.locations,
        extensions: {
          code: original.code,
          ...(original.details.issues ? { issues: original.details.issues } : {}),
          ...(original.details.retryAfterSeconds !== undefined ? { retryAfterSeconds: original.details.retryAfterSeconds } : {}),
          ...(original.details.requiredScopes ? { requiredScopes: original.details.requiredScopes } : {}),
        },
      };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
      // Parse, validation and variable errors from graphql-js itself: the caller's mistake.
      return { ...formatted, extensions: { code: code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED' ? 'validation_error' : code.toLowerCase() } };
    }
    logger.error({ err: original instanceof GraphQLError ? original.originalError ?? original : original }, 'unexpected error');
    return { message: 'Internal server error', path: formatted.path, extensions: { code: 'internal_error' } };
  };
}
