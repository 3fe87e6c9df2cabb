/**
 * The one error model of the domain. Codes name what went wrong in product words; each transport
 * maps them once (graph/errors.ts for GraphQL, facade-rest/errors.ts for HTTP). Messages are for
 * humans and never contain a secret.
 */
export const DOMAIN_ERROR_CODES = [
  'validation_error',
  'unauthenticated',
  'bearer_required',
  'missing_scope',
  'forbidden',
  'not_found',
  'invalid_transition',
  'stale_version',
  'conflict',
  'contact_point_conflict',
  'rate_limited',
  'signature_incomplete',
  'counter_active',
  'acknowledgement_required',
  'artifact_pending',
  /** A request with the same Idempotency-Key is still running. */
  'idempotency_key_in_use',
  'unavailable',
  'not_implemented',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export type ValidationIssue = {
  /** Path of the offending input field, in the domain's camelCase names (e.g. ['parties', 0, 'displayName']). */
  path: (string | number)[];
  message: string;
  /** A short machine type, e.g. 'too_long', 'invalid_email', 'otp_invalid'. */
  type: string;
};

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: {
      issues?: ValidationIssue[];
      retryAfterSeconds?: number;
      requiredScopes?: string[];
    } = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static validation(issues: ValidationIssue[]): DomainError {
    const first = issues[0];
    return new DomainError('validation_error', first ? first.message : 'Invalid input', { issues });
  }

  static invalid(path: (string | number)[], message: string, type: string): DomainError {
    return DomainError.validation([{ path, message, type }]);
  }

  static notFound(what = 'Record'): DomainError {
    return new DomainError('not_found', `${what} not found`);
  }
}

/** Collects validation issues so that one response names every bad field at once. */
export class IssueCollector {
  readonly issues: ValidationIssue[] = [];

  add(path: (string | number)[], message: string, type: string): void {
    this.issues.push({ path, message, type });
  }

  throwIfAny(): void {
    if (this.issues.length > 0) throw DomainError.validation(this.issues);
  }
}
