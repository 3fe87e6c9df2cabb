import { DomainError } from '../shared/errors.js';
import type { ParticipantRole, RecordStatus } from './entities.js';

/**
 * Every move a record can make, as data. Every path that changes a record's status (or edits it in a
 * state-dependent way) asks this table first; anything not listed is an illegal move, which is a
 * domain `invalid_transition` (409 over REST). The README's lifecycle section is generated from the
 * same rows.
 */
export const LIFECYCLE_TRIGGERS = [
  'edit_draft',
  'submit',
  'submit_counter',
  'resolve_counter',
  'withdraw_counter',
  'complete_signatures',
  'decline',
  'lapse',
  'rescind',
  'cancel_draft',
  'amend',
  'cancel',
  'successor_sealed',
] as const;
export type LifecycleTrigger = (typeof LIFECYCLE_TRIGGERS)[number];

export type Transition = {
  from: RecordStatus;
  trigger: LifecycleTrigger;
  to: RecordStatus;
  /** The condition, in words; enforced by the service that fires the trigger. */
  guard: string;
};

const PENDING: RecordStatus[] = ['pending_confirmation', 'counter_under_review'];

export const TRANSITIONS: readonly Transition[] = [
  { from: 'draft', trigger: 'edit_draft', to: 'draft', guard: 'caller is the initiator' },
  { from: 'draft', trigger: 'submit', to: 'pending_confirmation', guard: 'initiator finalized the current version; required participants present' },
  { from: 'draft', trigger: 'cancel_draft', to: 'cancelled_draft', guard: 'caller is the initiator' },
  { from: 'pending_confirmation', trigger: 'submit_counter', to: 'counter_under_review', guard: 'caller is an eligible non-initiator party; no active counter' },
  { from: 'counter_under_review', trigger: 'resolve_counter', to: 'pending_confirmation', guard: 'caller is the initiator' },
  { from: 'counter_under_review', trigger: 'withdraw_counter', to: 'pending_confirmation', guard: 'caller proposed the counter' },
  { from: 'pending_confirmation', trigger: 'complete_signatures', to: 'sealed', guard: 'every required participant finalized the current version' },
  ...PENDING.map((from): Transition => ({ from, trigger: 'decline', to: 'declined', guard: 'the last party still able to sign declines' })),
  ...PENDING.map((from): Transition => ({ from, trigger: 'lapse', to: 'expired', guard: 'expires_at has passed' })),
  ...PENDING.map((from): Transition => ({ from, trigger: 'rescind', to: 'rescinded', guard: 'caller is the initiator' })),
  { from: 'sealed', trigger: 'amend', to: 'sealed', guard: 'caller is a party; valid body (creates an amendment draft)' },
  { from: 'sealed', trigger: 'cancel', to: 'sealed', guard: 'caller is a party (creates a mutual cancellation draft)' },
  { from: 'sealed', trigger: 'successor_sealed', to: 'superseded', guard: 'its amendment or mutual cancellation sealed' },
];

export type ParticipantMove = 'decline' | 'complete_without' | 'waive_witness' | 'waive_co_notarizer' | 'replace_witness' | 'resend_invitation';

/**
 * Participant-level moves: in which record statuses each is possible, who may make it, and which
 * participants it applies to. They change a participant row; some may then complete the record.
 */
export const PARTICIPANT_MOVES: readonly { move: ParticipantMove; statuses: readonly RecordStatus[]; actor: string; roles?: readonly ParticipantRole[]; applies: string }[] = [
  { move: 'decline', statuses: PENDING, actor: 'the participant (not the initiator)', applies: 'an active party or witness who has not signed the current version' },
  { move: 'complete_without', statuses: PENDING, actor: 'initiator', roles: ['party'], applies: 'a party who declined or was removed' },
  { move: 'waive_witness', statuses: PENDING, actor: 'initiator', roles: ['witness'], applies: 'a witness who declined or was removed' },
  { move: 'waive_co_notarizer', statuses: PENDING, actor: 'initiator', roles: ['party'], applies: 'a co-notarizer who declined or was removed' },
  { move: 'replace_witness', statuses: PENDING, actor: 'initiator', roles: ['witness'], applies: 'a witness who declined or was removed; the new witness is invited' },
  { move: 'resend_invitation', statuses: PENDING, actor: 'initiator', applies: 'a participant with an open invitation (rate-limited)' },
];

export function findTransition(from: RecordStatus, trigger: LifecycleTrigger): Transition | undefined {
  return TRANSITIONS.find((row) => row.from === from && row.trigger === trigger);
}

/** The target status of `trigger` from `from`, or an `invalid_transition` error naming both. */
export function transition(from: RecordStatus, trigger: LifecycleTrigger): RecordStatus {
  const row = findTransition(from, trigger);
  if (!row) {
    throw new DomainError('invalid_transition', `A record in status '${from}' cannot ${trigger.replace(/_/g, ' ')}`);
  }
  return row.to;
}
