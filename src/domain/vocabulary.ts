/**
 * The product's enumerations, in the spec's words: one definition for the entities, the GraphQL
 * enums and the served OpenAPI document. Plain data, no ORM, so every layer can import it.
 */

export const RECORD_TYPES = ['agreement', 'declaration', 'witnessed_agreement', 'notarization'] as const;

export const RECORD_STATUSES = [
  'draft',
  'pending_confirmation',
  'counter_under_review',
  'sealed',
  'superseded',
  'cancelled_draft',
  'expired',
  'declined',
  'rescinded',
] as const;

export const PARTICIPANT_ROLES = ['initiator', 'party', 'witness'] as const;

export const PARTY_CONTACT_POINT_TYPES = ['email', 'messenger', 'unknown'] as const;

export const INPUT_CONTACT_POINT_TYPES = ['email', 'messenger'] as const;

/**
 * How a submitted record's invitations go out: to everyone at once (`parallel`), or one party at a
 * time in list order, the witnesses once every party has signed (`sequential`).
 */
export const SIGNING_ORDERS = ['parallel', 'sequential'] as const;
export type SigningOrder = (typeof SIGNING_ORDERS)[number];

export const COUNTER_STATUSES = ['pending', 'accepted', 'partially_accepted', 'rejected', 'withdrawn'] as const;

export const COUNTER_DECISIONS = ['accept', 'partially_accept', 'reject'] as const;

export const BLOCKCHAIN_STATUSES = ['pending', 'retrying', 'confirmed'] as const;

export const IDENTICON_KINDS = ['document', 'signature'] as const;

export const SIGNATURE_METHOD_TYPES = [
  'email_otp',
  'codehost_gist',
  'microblog_post',
  'forum_post',
  'webauthn_passkey',
  'messenger',
  'api_key',
] as const;

/** Status of a caller's signature execution for one record version. */
export const SIGNATURE_EXECUTION_STATUSES = ['in_progress', 'finalized', 'superseded'] as const;

/** Status of one method within a signature execution. */
export const SIGNATURE_METHOD_STATUSES = ['available', 'pending', 'satisfied', 'failed', 'cancelled', 'expired'] as const;

export const INITIATOR_SIGNATURE_STATUSES = ['not_started', 'in_progress', 'finalized'] as const;

/** A member's role in a team: admins manage it, members create and run records, viewers read them. */
export const TEAM_ROLES = ['admin', 'member', 'viewer'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

export const API_KEY_SCOPES = ['create', 'retrieve', 'verify', 'amend', 'cancel'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * Purposes anyone may request a code for (`request-otp`); a code works only for its own purpose (spec, Authentication 4).
 * `agreement_confirmation`: proof of control of the address a record was sent to, and nothing more:
 * verifying it opens no session, satisfies no signature method and moves no record.
 */
export const OTP_PURPOSES = ['authenticate', 'signature', 'agreement_confirmation', 'contact_point_link'] as const;

/** The code a hosted connector's consent page mails; issued by that page only, never through `request-otp`. */
export const CONNECTOR_CONSENT_PURPOSE = 'connector_consent' as const;

/** What a hosted assistant connector may be granted (the spec's Authentication 7): the five record scopes and offline_access. */
export const CONNECTOR_SCOPES = [...API_KEY_SCOPES, 'offline_access'] as const;

/**
 * What each scope lets a credential do, in the words of every place that shows it: the connector's
 * consent page, the keys pages and docs/authentication.md (test/unit/one-fact.test.ts compares them).
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<(typeof CONNECTOR_SCOPES)[number], string>> = {
  create: 'Create records (agreements, declarations, notarizations) and edit and submit drafts',
  retrieve: 'Read and list records, their documents and cards',
  verify: 'Start and follow signature steps (the person still completes every signature method)',
  amend: 'Propose amendments and counter-proposals, replace witnesses and resend invitations',
  cancel: 'Decline, rescind and cancel records, complete without a declined party, and waive witnesses',
  offline_access: 'Stay connected while the person is away: refresh access every hour, for at most 90 days (OAuth connectors only)',
};

/** The scopes as the docs show them: one line each, made from SCOPE_DESCRIPTIONS. */
export function scopesList(): string {
  return CONNECTOR_SCOPES.map((scope) => `- \`${scope}\`: ${SCOPE_DESCRIPTIONS[scope]}.`).join('\n');
}
export type ConnectorScope = (typeof CONNECTOR_SCOPES)[number];

export const NOTARIZATION_CONTENT_TYPES = ['file', 'text', 'hash'] as const;

export const NOTARIZATION_SIGNATURE_MODES = ['pending_signature', 'auto_seal'] as const;

export const VERIFICATION_VERDICTS = [
  'verified',
  'certificate',
  'matched_superseded',
  'matched_not_sealed',
  'no_match',
  'not_found',
] as const;

export const VERIFICATION_MATCH_METHODS = ['text', 'body', 'content_hash', 'document_hash', 'tx_hash'] as const;

export const IMAGE_REPRESENTATIONS = ['metadata', 'compatibility_data_uri'] as const;
