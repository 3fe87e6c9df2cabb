import { DomainError } from '../shared/errors.js';
import { API_KEY_SCOPES } from '../vocabulary.js';

export { API_KEY_SCOPES };

export type Scope = (typeof API_KEY_SCOPES)[number];

/** A signed-in person's session acts with every record scope: said here, once, where sessions are made. */
export const SESSION_SCOPES: readonly Scope[] = API_KEY_SCOPES;

/**
 * Who is calling, with the scopes it may act with, always explicit. Authentication proves access
 * only: no principal kind can ever satisfy a signature method (the spec's Authentication 8).
 */
export type Principal =
  | {
      /** A bearer session opened with an email one-time code. */
      kind: 'session';
      identityId: string;
      scopes: readonly Scope[];
      tokenId: string;
      /** The contact point whose OTP opened this session. */
      contactPointId: string;
    }
  | {
      kind: 'api_key';
      /** The key's owner: a person, or a team (a team's key acts for the team: `teamKey`). */
      identityId: string;
      scopes: readonly Scope[];
      apiKeyId: string;
      /** A team's key: its identity is the team's, and it acts for that team only. */
      teamKey?: boolean;
    }
  | {
      /** An OAuth connector grant (next issues: resolved by the OAuth credential resolver). */
      kind: 'oauth';
      identityId: string;
      scopes: readonly Scope[];
      grantId: string;
      clientId: string;
      /** The grant includes offline_access: the client holds a refresh token. */
      offlineAccess: boolean;
      /** The teams the person let the connector act for at consent (their memberships decide the rest). */
      teams?: readonly string[];
    }
  | {
      /** The MCP retrieval grant an authentication code opened on an MCP session (`retrieve` only, at most 600 s). */
      kind: 'mcp_session';
      identityId: string;
      scopes: readonly Scope[];
      /** The stored MCP session the grant was opened on. */
      mcpSessionId: string;
      grantId: string;
      /** True when it came with the session id; false when presented as a manual transport token. */
      sessionBound: boolean;
    };

export type SessionPrincipal = Extract<Principal, { kind: 'session' }>;

export function requireAuthenticated(principal: Principal | null): Principal {
  if (!principal) throw new DomainError('unauthenticated', 'Authentication required');
  return principal;
}

/** Operations on a person's own credentials and contact points: a signed-in session only. */
export function requireSession(principal: Principal | null): SessionPrincipal {
  const caller = requireAuthenticated(principal);
  if (caller.kind !== 'session') {
    throw new DomainError('bearer_required', 'This operation needs a bearer token; API keys are not accepted');
  }
  return caller;
}

/** The principal's kind and credential: what an answer or a confirmation made for exactly this caller is bound to. */
export function credentialKey(principal: Principal | null): string {
  if (!principal) return 'anonymous';
  switch (principal.kind) {
    case 'session':
      return `session:${principal.tokenId}`;
    case 'api_key':
      return `api_key:${principal.apiKeyId}`;
    case 'oauth':
      return `oauth:${principal.grantId}`;
    case 'mcp_session':
      return `mcp_session:${principal.grantId}`;
  }
}
