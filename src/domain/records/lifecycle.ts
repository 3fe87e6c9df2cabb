import { DomainError, IssueCollector } from '../shared/errors.js';
import type { ParticipantRole, RecordStatus, RecordType, SigningOrder } from './entities.js';
import { turnClosed, type ParticipantState, type TurnParticipant } from './signing-turn.js';
import type { WebhookEventType } from '../webhooks/events.js';

/**
 * Every move a record can make, as data, with who may make it and the guards as code beside the
 * rows. Every path that changes a record's status (or edits it in a state-dependent way) asks this
 * table first; anything not listed is an illegal move, which is a domain `invalid_transition` (409
 * over REST). The moves a reader may make now (`availableActions`) are computed from the same rows,
 * and the lifecycle tables of docs/records.md is checked against them (test/unit/lifecycle.test.ts).
 * The triggers' names are the rows' own: `LifecycleTrigger` is derived from them, so a new move is
 * named once, in its row.
 */

/**
 * Who makes a move: the initiator; a participant other than the initiator (party or witness); a
 * party (never a witness); the party who proposed the active counter; a signatory (the initiator or
 * a party, never a witness); or the service itself.
 */
export type Actor = 'initiator' | 'participant' | 'party' | 'proposer' | 'signatory' | 'system';

/** A row of the table; `T` is its trigger's name (the table's rows name every trigger there is). */
type Row<T extends string = string> = {
  from: RecordStatus;
  trigger: T;
  to: RecordStatus;
  actor: Actor;
  /** Only records of these types make the move (all when absent). */
  types?: readonly RecordType[];
  /** The condition, in words (the docs' tables). */
  guard: string;
  /** The webhook event the move causes, or null when it causes none of its own (rows of one trigger agree). */
  webhook: WebhookEventType | null;
  /**
   * The part of the guard that reads the record's state, in code: why the move is refused now, or
   * null. `fire` asks it before every move of the row, and `availableActions` before offering it, so
   * the service and the actions a reader is offered cannot disagree. (Who the caller is, the actor,
   * is checked apart: the service knows its caller, availableActions its reader.)
   */
  refusal?: (state: GuardState) => DomainError | null;
};

/** What a row's guard reads: the record's type and version, and its participants. */
export type GuardState = { type: RecordType; currentVersion: number; participants: readonly ParticipantState[] };

/** A draft is submitted once its initiator signed the current version and its type's roles are filled. */
function submissionRefusal({ type, currentVersion, participants }: GuardState): DomainError | null {
  const initiator = participants.find((p) => p.role === 'initiator');
  if (initiator?.confirmedVersion !== currentVersion) return new DomainError('invalid_transition', 'Sign the current version (finalize your signature) before submitting');
  const others = participants.filter((p) => p.role !== 'initiator' && !p.removedAt);
  const issues = new IssueCollector();
  if (NEGOTIATED.includes(type) && !others.some((p) => p.role === 'party')) issues.add(['parties'], 'An agreement needs at least one other party before it is submitted', 'required');
  if (type === 'witnessed_agreement' && !others.some((p) => p.role === 'witness')) issues.add(['witnesses'], 'A witnessed agreement needs at least one witness before it is submitted', 'required');
  return issues.issues.length > 0 ? DomainError.validation(issues.issues) : null;
}

const PENDING: readonly RecordStatus[] = ['pending_confirmation', 'counter_under_review'];
/** Records with parties who negotiate terms (declarations have no party, notarizations fix a hash). */
const NEGOTIATED: readonly RecordType[] = ['agreement', 'witnessed_agreement'];

/** The rows of a move made the same way from either pending status. */
function fromPending<const T extends string>(trigger: T, row: Omit<Row<T>, 'from' | 'trigger'>): Row<T>[] {
  return PENDING.map((from) => ({ from, trigger, ...row }));
}

const ROWS = [
  { from: 'draft', trigger: 'edit_draft', to: 'draft', actor: 'initiator', guard: 'caller is the initiator', webhook: null },
  { from: 'draft', trigger: 'submit', to: 'pending_confirmation', actor: 'initiator', guard: 'initiator finalized the current version; required participants present', refusal: submissionRefusal, webhook: 'record.submitted' },
  { from: 'draft', trigger: 'cancel_draft', to: 'cancelled_draft', actor: 'initiator', guard: 'caller is the initiator', webhook: 'record.cancelled' },
  { from: 'pending_confirmation', trigger: 'submit_counter', to: 'counter_under_review', actor: 'party', types: NEGOTIATED, guard: 'caller is an active non-initiator party; no active counter', webhook: 'counter.proposed' },
  { from: 'counter_under_review', trigger: 'resolve_counter', to: 'pending_confirmation', actor: 'initiator', guard: 'caller is the initiator', webhook: 'counter.resolved' },
  { from: 'counter_under_review', trigger: 'withdraw_counter', to: 'pending_confirmation', actor: 'proposer', guard: 'caller proposed the counter', webhook: 'counter.resolved' },
  { from: 'pending_confirmation', trigger: 'complete_signatures', to: 'sealed', actor: 'system', guard: 'every required participant finalized the current version', webhook: 'record.sealed' },
  ...fromPending('decline', { to: 'declined', actor: 'participant', guard: 'the last party still able to sign declines', webhook: 'participant.declined' }),
  ...fromPending('lapse', { to: 'expired', actor: 'system', guard: 'expires_at has passed', webhook: 'record.expired' }),
  ...fromPending('rescind', { to: 'rescinded', actor: 'initiator', guard: 'caller is the initiator', webhook: 'record.rescinded' }),
  { from: 'sealed', trigger: 'amend', to: 'sealed', actor: 'signatory', guard: 'caller is a party; valid body (creates an amendment draft)', webhook: null },
  { from: 'sealed', trigger: 'cancel', to: 'sealed', actor: 'signatory', guard: 'caller is a party (creates a mutual cancellation draft)', webhook: null },
  { from: 'sealed', trigger: 'successor_sealed', to: 'superseded', actor: 'system', guard: 'its amendment or mutual cancellation sealed', webhook: 'record.superseded' },
] as const satisfies readonly Row[];

/** The name of a move: every trigger the table's rows name. */
export type LifecycleTrigger = (typeof ROWS)[number]['trigger'];
export type Transition = Row<LifecycleTrigger>;
export const TRANSITIONS: readonly Transition[] = ROWS;
/** Every trigger, in the table's order. */
export const LIFECYCLE_TRIGGERS: readonly LifecycleTrigger[] = [...new Set(TRANSITIONS.map((row) => row.trigger))];

/** A participant as the rules need it (an entity, a row of the read model, or a view). */
/** A participant as the rules see it (declared with the turn rules, which need it too). */
export type { ParticipantState };

const active = (p: ParticipantState) => !p.declinedAt && !p.waivedAt && !p.removedAt;
const signedVersion = (p: ParticipantState, version: number) => p.confirmedVersion === version;
/** Declined or removed, and not yet waived: someone the record still waits for in vain. */
const stepsOut = (p: ParticipantState) => Boolean(p.declinedAt || p.removedAt) && !p.waivedAt;

export type ParticipantMove = 'decline' | 'complete_without' | 'waive_witness' | 'waive_co_notarizer' | 'replace_witness' | 'resend_invitation';

/**
 * Participant-level moves: in which record statuses each is possible, who may make it, on which
 * participants (roles, and `applies`, the guard in code), for which record types. They change a
 * participant row; some may then complete the record.
 */
export const PARTICIPANT_MOVES: readonly {
  move: ParticipantMove;
  statuses: readonly RecordStatus[];
  actor: Actor;
  roles: readonly ParticipantRole[];
  types?: readonly RecordType[];
  /** The participant it concerns qualifies (the record is at `version`). */
  applies: (participant: ParticipantState, version: number) => boolean;
  /** In words, for the docs and error messages. */
  when: string;
  /** Only on the participant whose turn it is to sign, by the record's signing order (signing-turn.ts). */
  onTurn?: true;
}[] = [
  { move: 'decline', statuses: PENDING, actor: 'participant', roles: ['party', 'witness'], applies: (p, v) => active(p) && !signedVersion(p, v), when: 'an active party or witness who has not signed the current version (their own row)' },
  { move: 'complete_without', statuses: PENDING, actor: 'initiator', roles: ['party'], types: NEGOTIATED, applies: stepsOut, when: 'a party who declined or was removed' },
  { move: 'waive_witness', statuses: PENDING, actor: 'initiator', roles: ['witness'], applies: stepsOut, when: 'a witness who declined or was removed' },
  { move: 'waive_co_notarizer', statuses: PENDING, actor: 'initiator', roles: ['party'], types: ['notarization'], applies: stepsOut, when: 'a co-notarizer who declined or was removed' },
  { move: 'replace_witness', statuses: PENDING, actor: 'initiator', roles: ['witness'], applies: stepsOut, when: 'a witness who declined or was removed; the new witness is invited' },
  { move: 'resend_invitation', statuses: PENDING, actor: 'initiator', roles: ['party', 'witness'], applies: (p, v) => active(p) && !signedVersion(p, v), onTurn: true, when: 'a participant with an open invitation whose turn it is (rate-limited)' },
];

/**
 * What a participant's decline leads to: the record ends `declined` when they are the last party
 * still able to sign; otherwise it stays pending and the initiator may make `initiatorMoves` on them
 * (go on without them, waive or replace them) or rescind. The decline itself and its preview both ask this.
 */
export function declineOutcome(
  type: RecordType,
  participants: readonly ParticipantState[],
  declinerId: string,
  version: number,
): { endsRecord: true } | { endsRecord: false; initiatorMoves: ParticipantMove[] } {
  const decliner = participants.find((p) => p.id === declinerId);
  if (!decliner) throw DomainError.notFound('Participant');
  if (decliner.role === 'party' && !participants.some((p) => p.id !== declinerId && p.role === 'party' && active(p))) return { endsRecord: true };
  const declined = { ...decliner, declinedAt: decliner.declinedAt ?? new Date() };
  const initiatorMoves = PARTICIPANT_MOVES.filter(
    (rule) => rule.actor === 'initiator' && rule.roles.includes(decliner.role) && (!rule.types || rule.types.includes(type)) && rule.applies(declined, version),
  ).map((rule) => rule.move);
  return { endsRecord: false, initiatorMoves };
}

/**
 * The signing window: in which record statuses a participant of each role may sign. A draft is
 * signed by its initiator alone; everyone signs a pending record; nobody signs while a counter is
 * under review (the terms may change) or once the record has ended.
 */
const SIGNING_WINDOWS: readonly { status: RecordStatus; roles: readonly ParticipantRole[] }[] = [
  { status: 'draft', roles: ['initiator'] },
  { status: 'pending_confirmation', roles: ['initiator', 'party', 'witness'] },
];

/** Why a participant of `role` cannot sign a record in `status`, or null when they can. */
export function signingClosed(status: RecordStatus, role: ParticipantRole): string | null {
  if (SIGNING_WINDOWS.some((window) => window.status === status && window.roles.includes(role))) return null;
  if (status === 'draft') return 'Only the initiator signs a draft; others sign after it is submitted';
  if (status === 'counter_under_review') return 'Signing is paused while a counter-proposal is under review';
  return `Signing is closed: the record is ${status}`;
}

export function findTransition(from: RecordStatus, trigger: LifecycleTrigger, type?: RecordType): Transition | undefined {
  return TRANSITIONS.find((row) => row.from === from && row.trigger === trigger && (!type || !row.types || row.types.includes(type)));
}

/**
 * The target status of `trigger` from `from` (for a record of `type`), or an `invalid_transition`
 * error naming both; with the record's `state`, the row's guard is asked too (its refusal is thrown).
 */
export function transition(from: RecordStatus, trigger: LifecycleTrigger, type?: RecordType, state?: GuardState): RecordStatus {
  const row = findTransition(from, trigger, type);
  if (!row) {
    const which = type && findTransition(from, trigger) ? `A ${type.replace(/_/g, ' ')}` : `A record in status '${from}'`;
    throw new DomainError('invalid_transition', `${which} cannot ${trigger.replace(/_/g, ' ')}`);
  }
  const refused = state && row.refusal?.(state);
  if (refused) throw refused;
  return row.to;
}

type ParticipantRule = (typeof PARTICIPANT_MOVES)[number];

/** Why a record in `status` of `type` does not allow `rule`'s move, or null when it does. */
function moveClosed(rule: ParticipantRule, status: RecordStatus, type: RecordType): string | null {
  const move = rule.move.replace(/_/g, ' ');
  if (!rule.statuses.includes(status)) return `A record in status '${status}' does not allow ${move}`;
  if (rule.types && !rule.types.includes(type)) return `A ${type.replace(/_/g, ' ')} does not allow ${move}`;
  return null;
}

/** The participant-level rule for `move` on a record in `status` of `type`, or an `invalid_transition` error. */
export function participantMove(move: ParticipantMove, status: RecordStatus, type: RecordType): ParticipantRule {
  const rule = PARTICIPANT_MOVES.find((row) => row.move === move)!;
  const closed = moveClosed(rule, status, type);
  if (closed) throw new DomainError('invalid_transition', closed);
  return rule;
}

/** Moves the initiator makes whatever participant they concern (the audit trail's actor). */
export const INITIATOR_MOVES: ReadonlySet<string> = new Set([
  ...TRANSITIONS.filter((row) => row.actor === 'initiator').map((row) => row.trigger),
  ...PARTICIPANT_MOVES.filter((row) => row.actor === 'initiator').map((row) => row.move),
]);
/** Moves the service makes on its own. */
export const SYSTEM_MOVES: ReadonlySet<string> = new Set(TRANSITIONS.filter((row) => row.actor === 'system').map((row) => row.trigger));

/** What a reader may ask for on a record as a whole (participant moves are offered per participant). */
export const RECORD_ACTIONS = [
  'edit',
  'submit',
  'cancel_draft',
  'sign',
  'decline',
  'propose_counter',
  'resolve_counter',
  'withdraw_counter',
  'rescind',
  'amend',
  'cancel',
] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

/** The trigger behind each record action (`sign` is the signing window's, `decline` the participant move's). */
export const ACTION_TRIGGERS = {
  edit: 'edit_draft',
  submit: 'submit',
  cancel_draft: 'cancel_draft',
  propose_counter: 'submit_counter',
  resolve_counter: 'resolve_counter',
  withdraw_counter: 'withdraw_counter',
  rescind: 'rescind',
  amend: 'amend',
  cancel: 'cancel',
} as const satisfies Partial<Record<RecordAction, LifecycleTrigger>>;

export const PARTICIPANT_ACTIONS = ['complete_without', 'waive_witness', 'waive_co_notarizer', 'replace_witness', 'resend_invitation'] as const;
export type ParticipantAction = (typeof PARTICIPANT_ACTIONS)[number];

/** A record as the rules see it for one reader: which rows are the reader's. */
export type ActionContext = {
  type: RecordType;
  status: RecordStatus;
  currentVersion: number;
  participants: readonly ParticipantState[];
  /** The reader is the initiator (and signs as such). */
  isInitiator: boolean;
  /** The reader manages the record as its initiator may: its initiator, or an admin of its team (never signs for them). */
  managesAsInitiator: boolean;
  /** Ids of the participant rows that are the reader (linked identity or verified contact point). */
  readerRows: ReadonlySet<string>;
  /** The participant who proposed the pending counter, if one is pending. */
  counterProposerId: string | null;
  /** The record's signing order (parallel when absent): in sequential order only the party whose turn it is signs. */
  signingOrder?: SigningOrder;
};

/** The signing order lets `participant` sign (or be invited) now. */
function onTurn(context: ActionContext, participant: TurnParticipant): boolean {
  return turnClosed(context.signingOrder ?? 'parallel', context.participants, participant.id, context.currentVersion) === null;
}

function actorHolds(actor: Actor, context: ActionContext): boolean {
  const mine = context.participants.filter((p) => context.readerRows.has(p.id) && !p.removedAt);
  switch (actor) {
    case 'initiator':
      return context.managesAsInitiator;
    case 'participant':
      return mine.some((p) => p.role !== 'initiator' && active(p));
    case 'party':
      return mine.some((p) => p.role === 'party' && active(p));
    case 'proposer':
      return context.counterProposerId !== null && context.readerRows.has(context.counterProposerId);
    case 'signatory':
      return context.managesAsInitiator || mine.some((p) => p.role !== 'witness');
    case 'system':
      return false;
  }
}

/** The record-level moves the reader may make now, from the table (its extra guards included). */
export function availableActions(context: ActionContext): RecordAction[] {
  const { status, type, currentVersion } = context;
  const mine = context.participants.filter((p) => context.readerRows.has(p.id) || (p.role === 'initiator' && context.isInitiator));
  return RECORD_ACTIONS.filter((action) => {
    if (action === 'sign') return mine.some((p) => active(p) && !signedVersion(p, currentVersion) && signingClosed(status, p.role) === null && onTurn(context, p));
    if (action === 'decline') {
      const rule = PARTICIPANT_MOVES.find((row) => row.move === 'decline')!;
      return moveClosed(rule, status, type) === null && mine.some((p) => rule.roles.includes(p.role) && rule.applies(p, currentVersion));
    }
    const row = findTransition(status, ACTION_TRIGGERS[action], type);
    if (!row || !actorHolds(row.actor, context) || row.refusal?.(context)) return false;
    if (action === 'resolve_counter') return context.counterProposerId !== null;
    return true;
  });
}

/** The participant-level moves the reader may make on `participant` now. */
export function participantActions(context: ActionContext, participant: ParticipantState): ParticipantAction[] {
  return PARTICIPANT_ACTIONS.filter((move) => {
    const rule = PARTICIPANT_MOVES.find((row) => row.move === move)!;
    return (
      moveClosed(rule, context.status, context.type) === null &&
      rule.roles.includes(participant.role) &&
      actorHolds(rule.actor, context) &&
      rule.applies(participant, context.currentVersion) &&
      (!rule.onTurn || onTurn(context, participant))
    );
  });
}
