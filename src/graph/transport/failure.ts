import type { GraphQLFormattedError } from 'graphql';
import { DOMAIN_ERROR_CODES, DomainError, type DomainErrorCode, type ValidationIssue } from '../../domain/shared/errors.js';
import { GraphOperationError } from '../executor.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../../domain/shared/database-errors.js';

/**
 * A failed operation as every transport sees it, whatever raised it (a resolver's DomainError
 * carried in GraphQL `extensions`, or a DomainError thrown by a catalog mapper): the domain code and
 * what a client needs to recover. REST and MCP each map it with their one table.
 */
export type OperationFailure = {
  code: DomainErrorCode | 'internal_error';
  message: string;
  issues: ValidationIssue[];
  retryAfterSeconds?: number;
  requiredScopes?: string[];
};

const isDomainCode = (code: unknown): code is DomainErrorCode =>
  typeof code === 'string' && (DOMAIN_ERROR_CODES as readonly string[]).includes(code);

/** The failure of a GraphQL error (the first one of an in-process execution). */
function failureFromGraph(error: GraphQLFormattedError): OperationFailure {
  const extensions = error.extensions ?? {};
  return {
    code: isDomainCode(extensions.code) ? extensions.code : 'internal_error',
    message: error.message,
    issues: Array.isArray(extensions.issues) ? (extensions.issues as ValidationIssue[]) : [],
    retryAfterSeconds: typeof extensions.retryAfterSeconds === 'number' ? extensions.retryAfterSeconds : undefined,
    requiredScopes: Array.isArray(extensions.requiredScopes) ? (extensions.requiredScopes as string[]) : undefined,
  };
}

export function failureFromDomain(error: DomainError): OperationFailure {
  return {
    code: error.code,
    message: error.message,
    issues: error.details.issues ?? [],
    retryAfterSeconds: error.details.retryAfterSeconds,
    requiredScopes: error.details.requiredScopes,
  };
}

/** The failure an error stands for, or null when it is unexpected (a bug: log it, answer internal_error). */
export function operationFailure(error: unknown): OperationFailure | null {
  if (error instanceof GraphOperationError && error.errors[0]) return failureFromGraph(error.errors[0]);
  if (error instanceof DomainError) return failureFromDomain(error);
  if (isDatabaseUnavailable(error)) return failureFromDomain(databaseUnavailable());
  return null;
}
