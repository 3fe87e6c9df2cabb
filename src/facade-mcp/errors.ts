import { z } from 'zod';
import type { DomainErrorCode } from '../domain/shared/errors.js';
import type { OperationFailure } from '../graph/transport/failure.js';
import { snakeCase } from '../graph/transport/case.js';

/** Failures only MCP knows: guarded actions' confirmations, and internal errors. */
type McpOnlyErrorCode = 'confirmation_required' | 'stale_confirmation_token' | 'expired' | 'internal_error';

export type McpErrorCode =
  | 'auth_required'
  | 'missing_scope'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'signature_incomplete'
  | 'acknowledgement_required'
  | 'artifact_pending'
  | 'rate_limited'
  | 'validation_error'
  | 'unavailable'
  | 'not_implemented'
  | McpOnlyErrorCode;

/**
 * The MCP transport's one error table: every domain code (as GraphQL carries it in
 * `extensions.code`) has its MCP `error_code`, so a new domain code that is not mapped here fails
 * the type check. Lifecycle and stale-state conflicts are all `conflict` (re-read, re-preview).
 */
const MCP_CODE: Record<DomainErrorCode | 'internal_error', McpErrorCode> = {
  validation_error: 'validation_error',
  unauthenticated: 'auth_required',
  bearer_required: 'auth_required',
  missing_scope: 'missing_scope',
  forbidden: 'forbidden',
  not_found: 'not_found',
  invalid_transition: 'conflict',
  stale_version: 'conflict',
  conflict: 'conflict',
  contact_point_conflict: 'conflict',
  counter_active: 'conflict',
  idempotency_key_in_use: 'conflict',
  signature_incomplete: 'signature_incomplete',
  acknowledgement_required: 'acknowledgement_required',
  artifact_pending: 'artifact_pending',
  rate_limited: 'rate_limited',
  unavailable: 'unavailable',
  not_implemented: 'not_implemented',
  internal_error: 'internal_error',
};

export function mcpCodeOf(code: DomainErrorCode | 'internal_error'): McpErrorCode {
  return MCP_CODE[code];
}

/** The call that recovers from a failure: a tool and its arguments. */
export type RetryAction = { tool: string; arguments: Record<string, unknown> } | null;

/** What a recoverable failure's `structuredContent` carries (the spec's Errors section). */
export type ToolFailure = {
  error_code: McpErrorCode;
  message: string;
  required_scopes: string[];
  retry_after_seconds: number | null;
  retry_action: RetryAction;
  /** Which arguments were wrong and why (validation errors only). */
  issues?: { path: (string | number)[]; message: string; type: string }[];
};

/** A failure a tool raises itself (outside any GraphQL operation). */
export class ToolError extends Error {
  constructor(readonly failure: ToolFailure) {
    super(failure.message);
    this.name = 'ToolError';
  }

  static of(code: McpErrorCode, message: string, extra: Partial<Omit<ToolFailure, 'error_code' | 'message'>> = {}): ToolError {
    return new ToolError({ error_code: code, message, required_scopes: [], retry_after_seconds: null, retry_action: null, ...extra });
  }
}

/** Maps a failed operation to the MCP failure, with the recovery the code implies for this call. */
export function toolFailure(failure: OperationFailure, recovery: (code: McpErrorCode) => RetryAction): ToolFailure {
  const code = mcpCodeOf(failure.code);
  return {
    error_code: code,
    // Internal errors are logged by the caller; the message never leaks them.
    message: code === 'internal_error' ? 'Internal server error' : failure.message,
    required_scopes: failure.requiredScopes ?? [],
    retry_after_seconds: failure.retryAfterSeconds !== undefined ? Math.max(1, Math.ceil(failure.retryAfterSeconds)) : code === 'rate_limited' ? 1 : null,
    retry_action: recovery(code),
    // In the tool's own argument names (snake_case), never the domain's.
    ...(failure.issues.length > 0 ? { issues: failure.issues.map((issue) => ({ ...issue, path: issue.path.map((part) => (typeof part === 'string' ? snakeCase(part) : part)) })) } : {}),
  };
}

/** The failure's shape, part of every tool's declared output schema (a result is this or the tool's success). */
export const toolFailureSchema = z.object({
  error_code: z.string(),
  message: z.string(),
  required_scopes: z.array(z.string()),
  retry_after_seconds: z.number().int().nullable(),
  retry_action: z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) }).nullable(),
  issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string(), type: z.string() })).optional(),
});
