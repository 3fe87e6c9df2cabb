import { DomainError } from '../shared/errors.js';
import { API_KEY_SCOPES } from '../vocabulary.js';

export { API_KEY_SCOPES };

export type Scope = (typeof API_KEY_SCOPES)[number];

/**
 * Who is calling. Authentication proves access only: no principal kind can ever satisfy a
 * signature method (the spec's Authentication 8).
 */
export type Principal =
  | {
      kind: 'bearer';
      identityId: string;
      tokenId: string;
      /** The contact point whose OTP opened this session. */
      contactPointId: string;
    }
  | {
      kind: 'api_key';
      identityId: string;
      apiKeyId: string;
      scopes: readonly Scope[];
    };

/** A bearer session acts for its identity with every record scope; an API key only with its own. */
export function requireScope(principal: Principal | null, scope: Scope): Principal {
  const caller = requireAuthenticated(principal);
  if (caller.kind === 'api_key' && !caller.scopes.includes(scope)) {
    throw new DomainError('missing_scope', `This API key lacks the '${scope}' scope`, { requiredScopes: [scope] });
  }
  return caller;
}

export function requireAuthenticated(principal: Principal | null): Principal {
  if (!principal) throw new DomainError('unauthenticated', 'Authentication required');
  return principal;
}

export function requireBearer(principal: Principal | null): Extract<Principal, { kind: 'bearer' }> {
  const caller = requireAuthenticated(principal);
  if (caller.kind !== 'bearer') {
    throw new DomainError('bearer_required', 'This operation needs a bearer token; API keys are not accepted');
  }
  return caller;
}
