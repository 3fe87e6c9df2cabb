import { DomainError } from '../shared/errors.js';
import { requireAuthenticated, requireSession, type Principal, type Scope, type SessionPrincipal } from './principal.js';
import type { TeamRole } from '../vocabulary.js';

/**
 * Who may run each operation of the product: `public` (no credentials), `session` (a signed-in
 * person's bearer session only, never an API key or connector) or the one API-key scope it needs.
 * This is the single declaration: the operation catalog's entries are named by these keys, the
 * OpenAPI `x-required-scopes` and the GraphQL field descriptions are generated from it, the services
 * enforce it by naming the operation they run (`requireAccess`: no scope is written anywhere else),
 * and test/unit/operation-access.test.ts fails when a transport disagrees.
 */
export const OPERATION_ACCESS = {
  'identity.requestOtp': 'public',
  'identity.verifyOtp': 'public',
  'identity.openMcpGrant': 'public',
  'identity.openSignInPage': 'public',
  'identity.authenticationStatus': 'public',
  'identity.signOut': 'session',
  'identity.listContactPoints': 'session',
  'identity.linkContactPoint': 'session',
  'identity.listApiKeys': 'session',
  'identity.createApiKey': 'session',
  'identity.revokeApiKey': 'session',
  'identity.listConnectors': 'session',
  'identity.disconnectConnector': 'session',

  'webhooks.list': 'session',
  'webhooks.get': 'session',
  'webhooks.create': 'session',
  'webhooks.update': 'session',
  'webhooks.delete': 'session',
  'webhooks.rotateSecret': 'session',
  'webhooks.deliveries': 'session',
  'webhooks.redeliver': 'session',
  'webhooks.test': 'session',

  // Reading which teams a credential acts for: a team's key its own, a connector those chosen at consent.
  'teams.list': 'retrieve',
  'teams.get': 'retrieve',
  'teams.create': 'session',
  'teams.update': 'session',
  'teams.delete': 'session',
  'teams.members': 'session',
  'teams.updateMember': 'session',
  'teams.removeMember': 'session',
  'teams.invite': 'session',
  'teams.invitations': 'session',
  'teams.revokeInvitation': 'session',
  'teams.previewInvitation': 'public',
  'teams.acceptInvitation': 'session',
  'teams.declineInvitation': 'session',
  'teams.activity': 'session',
  'teams.listApiKeys': 'session',
  'teams.createApiKey': 'session',
  'teams.revokeApiKey': 'session',
  'teams.listWebhooks': 'session',
  'teams.createWebhook': 'session',

  'templates.list': 'retrieve',
  'templates.get': 'retrieve',
  'templates.create': 'create',
  'templates.update': 'create',
  'templates.delete': 'create',
  'templates.createRecord': 'create',
  'bulkSends.start': 'create',
  'bulkSends.get': 'retrieve',
  'bulkSends.list': 'retrieve',

  'records.list': 'retrieve',
  'records.get': 'retrieve',
  'records.createAgreement': 'create',
  'records.createDeclaration': 'create',
  'records.update': 'create',
  'records.setReminders': 'amend',
  'records.activity': 'retrieve',

  'ceremony.startExecution': 'verify',
  'ceremony.getExecution': 'verify',
  'ceremony.finalize': 'verify',
  'ceremony.startMethod': 'verify',
  'ceremony.submitMethod': 'verify',
  'ceremony.refreshMethod': 'verify',
  'ceremony.cancelMethod': 'verify',
  'ceremony.openSecretInput': 'verify',
  'secretInputs.describe': 'public',
  'secretInputs.complete': 'public',

  'lifecycle.submit': 'create',
  'lifecycle.decline': 'cancel',
  'lifecycle.rescind': 'cancel',
  'lifecycle.cancel': 'cancel',
  'lifecycle.amend': 'amend',
  'lifecycle.submitCounter': 'amend',
  'lifecycle.getCounter': 'retrieve',
  'lifecycle.resolveCounter': 'amend',
  'lifecycle.withdrawCounter': 'amend',
  'lifecycle.completeWithoutParticipant': 'cancel',
  'lifecycle.waiveWitness': 'cancel',
  'lifecycle.waiveCoNotarizer': 'cancel',
  'lifecycle.replaceWitness': 'amend',
  'lifecycle.resendInvitation': 'amend',

  'notarizations.create': 'create',
  'notarizations.get': 'retrieve',

  'verification.getPublicRecord': 'public',
  'verification.verifyRecord': 'public',
  'inbound.receiveMessengerUpdate': 'public',

  'artifacts.getAuditTrail': 'retrieve',
  'artifacts.getDocument': 'retrieve',
  'artifacts.getCard': 'retrieve',
  'artifacts.createCardTicket': 'retrieve',
  'artifacts.redeemCardTicket': 'public',
  'artifacts.createDocumentTicket': 'retrieve',
  'artifacts.redeemDocumentTicket': 'public',

  // Bulk exports of sealed records (the ZIP itself is downloaded with a single-use link: its ticket is the proof).
  'exports.create': 'retrieve',
  'exports.get': 'retrieve',
  'exports.list': 'retrieve',
  'exports.issueDownload': 'retrieve',
} as const satisfies Record<string, OperationAccess>;

/**
 * The role in a team an operation needs when it acts on a team (its id given, or a team's record):
 * the same declaration's second half. `teams.removeMember` is any member's for themselves (leaving)
 * and an admin's for anyone else. Managing a team's record as its initiator may (edit, submit,
 * resend, cancel, amend, resolve counters) is its initiator's while a member, and every admin's
 * (`actsAsInitiator`); signing is never a team's.
 */
export const TEAM_OPERATION_ROLES = {
  'teams.get': 'viewer',
  'teams.members': 'viewer',
  'teams.activity': 'viewer',
  'teams.removeMember': 'viewer',
  'records.list': 'viewer',
  'records.get': 'viewer',
  'artifacts.getAuditTrail': 'viewer',
  'artifacts.getDocument': 'viewer',
  'templates.list': 'viewer',
  'templates.get': 'viewer',
  'templates.create': 'member',
  'templates.update': 'member',
  'templates.delete': 'member',
  'bulkSends.start': 'member',
  'bulkSends.get': 'viewer',
  'bulkSends.list': 'viewer',
  'records.createAgreement': 'member',
  'records.createDeclaration': 'member',
  'notarizations.create': 'member',
  'teams.update': 'admin',
  'teams.delete': 'admin',
  'teams.updateMember': 'admin',
  'teams.invite': 'admin',
  'teams.invitations': 'admin',
  'teams.revokeInvitation': 'admin',
  'teams.listApiKeys': 'admin',
  'teams.createApiKey': 'admin',
  'teams.revokeApiKey': 'admin',
  'teams.listWebhooks': 'admin',
  'teams.createWebhook': 'admin',
  // A team's export holds every sealed record of the team: a member's (and its key's), not a viewer's.
  'exports.create': 'member',
  'exports.get': 'member',
  'exports.list': 'member',
  'exports.issueDownload': 'member',
} as const satisfies Partial<Record<keyof typeof OPERATION_ACCESS, TeamRole>>;

export type TeamOperation = keyof typeof TEAM_OPERATION_ROLES;

export type OperationAccess = 'public' | 'session' | Scope;
export type DomainOperation = keyof typeof OPERATION_ACCESS;

export function accessOf(operation: DomainOperation): OperationAccess {
  return OPERATION_ACCESS[operation];
}

/** The API-key scope an operation needs, or null when it needs none (public, or sessions only). */
export function scopeOf(operation: DomainOperation): Scope | null {
  const access: OperationAccess = OPERATION_ACCESS[operation];
  return access === 'public' || access === 'session' ? null : access;
}

/** The operations that need an API-key scope (every other is public or for sessions only). */
export type ScopedOperation = { [K in DomainOperation]: (typeof OPERATION_ACCESS)[K] extends Scope ? K : never }[DomainOperation];

/** The operations for a signed-in person's bearer session only. */
export type SessionOperation = { [K in DomainOperation]: (typeof OPERATION_ACCESS)[K] extends 'session' ? K : never }[DomainOperation];

/** Whether the caller may run the operation: whatever its kind, only its own scopes count. */
export function allows(principal: Principal, operation: ScopedOperation): boolean {
  return principal.scopes.includes(OPERATION_ACCESS[operation]);
}

/**
 * The caller, when the declaration lets it run `operation`: the one access check of the services,
 * which name the operation they run and never a scope. Throws `unauthenticated` without a caller and
 * `missing_scope` (naming the scope the declaration gives) when its credential lacks it.
 */
export function requireAccess(principal: Principal | null, operation: SessionOperation): SessionPrincipal;
export function requireAccess(principal: Principal | null, operation: ScopedOperation | SessionOperation): Principal;
export function requireAccess(principal: Principal | null, operation: ScopedOperation | SessionOperation): Principal {
  const access: OperationAccess = OPERATION_ACCESS[operation];
  if (access === 'session') return requireSession(principal);
  const caller = requireAuthenticated(principal);
  if (!allows(caller, operation as ScopedOperation)) {
    const scope = OPERATION_ACCESS[operation];
    const holder = caller.kind === 'api_key' ? 'This API key' : 'This credential';
    throw new DomainError('missing_scope', `${holder} lacks the '${scope}' scope`, { requiredScopes: [scope] });
  }
  return caller;
}
