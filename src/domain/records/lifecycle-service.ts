import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../identity/principal.js';
import type { ScopedOperation } from '../identity/operation-access.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { optionalLine } from '../shared/unicode.js';
import { lifecycle, type DomainEvents, type RecordLifecycleEvent } from '../shared/events.js';
import type { RateLimiter } from '../shared/rate-limiter.js';
import { completeIfAllSigned } from './completion.js';
import { CounterProposal, Participant, SignedRecord } from './entities.js';
import type { Invitations } from './invitations.js';
import { declineOutcome, participantMove, type ParticipantMove } from './lifecycle.js';
import { turnClosed } from './signing-turn.js';
import { normalizeParties, validateParticipantsForType, type NamedPartyInput } from './record-input.js';
import { LIMITS } from '../text-rules.js';
import { fire, lifecycleEvent, requireInitiator, withLockedRecord, type LockedRecord, type SharedTransaction } from './record-lock.js';
import { isViewerParticipant } from './record-view.js';

export type LifecycleSettings = { defaultLapseDays: number; resendsPerHour: number };

/** The operation each waiver runs, as the access declaration names it. */
const WAIVE_OPERATIONS = {
  complete_without: 'lifecycle.completeWithoutParticipant',
  waive_witness: 'lifecycle.waiveWitness',
  waive_co_notarizer: 'lifecycle.waiveCoNotarizer',
} as const satisfies Record<string, ScopedOperation>;
/**
 * Record-level and participant-level moves: submit, decline, rescind, draft cancellation,
 * waivers, witness replacement, invitation resends and expiry. Each runs on the locked record and
 * asks the transition table (records/lifecycle.ts) first.
 */
export class LifecycleService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      invitations: Invitations;
      events: DomainEvents;
      rateLimiter: RateLimiter;
      settings: LifecycleSettings;
    },
  ) {}

  /**
   * draft -> pending_confirmation: the initiator has signed; invitations go to everyone else, or in
   * sequential order to the first party only. `within`: part of a shared transaction.
   */
  async submit(principal: Principal | null, idOrReference: string, within?: SharedTransaction): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.submit', async (locked) => {
      const { record, now } = locked;
      requireInitiator(locked);
      // The row's guard (lifecycle.ts): the initiator signed the current version, the type's roles are filled.
      fire(locked, 'submit');
      const others = record.participants.getItems().filter((p) => p.role !== 'initiator' && !p.removedAt);
      record.expiresAt = new Date(now.getTime() + (record.lapseDays ?? this.deps.settings.defaultLapseDays) * 86_400_000);
      // Everyone is named as of submission; whose invitation goes out now is the signing order's call.
      for (const participant of others) participant.invitedAt = now;
      await this.deps.invitations.inviteDue(locked.em, record, now);
      await this.completeIfDone(locked);
      return record.id;
    }, within);
  }

  /**
   * A non-initiator declines. A witness only steps out (the initiator may waive or replace them); a
   * party is marked declined, and the record ends as `declined` when no other party is left to sign
   * (otherwise the initiator may complete without them, or rescind).
   */
  async decline(principal: Principal | null, idOrReference: string, reason: string | null | undefined): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.decline', async (locked) => {
      const { record, viewer, caller, now } = locked;
      const issues = new IssueCollector();
      const declinedReason = optionalLine(issues, reason, 'reason', LIMITS.reason);
      issues.throwIfAny();
      const participant = record.participants
        .getItems()
        .find((p) => p.role !== 'initiator' && !p.removedAt && !p.declinedAt && !p.waivedAt && isViewerParticipant(p, viewer));
      if (!participant) {
        throw new DomainError(
          'forbidden',
          record.initiatorIdentity === caller.identityId ? 'The initiator cannot decline; rescind instead' : 'Only an invited participant can decline',
        );
      }
      this.allow('decline', record);
      if (participant.confirmedVersion === record.currentVersion) throw new DomainError('conflict', 'You already signed this version');
      participant.declinedAt = now;
      participant.declinedReason = declinedReason;
      // A proposer who declines no longer stands behind their counter-proposal: it is withdrawn.
      const counter = await locked.em.findOne(CounterProposal, { record, status: 'pending', proposedBy: participant });
      if (counter) {
        counter.status = 'withdrawn';
        counter.resolvedAt = now;
        fire(locked, 'withdraw_counter', participant.id);
      }
      if (declineOutcome(record.type, record.participants.getItems(), participant.id, record.currentVersion).endsRecord) fire(locked, 'decline', participant.id);
      else locked.events.push(lifecycleEvent(record, `${participant.role}_declined`, record.status, participant.id, now));
      return record.id;
    });
  }

  /**
   * Turns reminders to participants who have not signed off or on (reminders.ts), by the initiator or
   * an admin of the record's team; any status (a record no longer pending gets none either way).
   */
  async setReminders(principal: Principal | null, idOrReference: string, enabled: boolean): Promise<string> {
    return this.change(principal, idOrReference, 'records.setReminders', async (locked) => {
      requireInitiator(locked);
      locked.record.remindersEnabled = enabled;
      return locked.record.id;
    });
  }

  /** pending -> rescinded, by the initiator. */
  async rescind(principal: Principal | null, idOrReference: string): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.rescind', async (locked) => {
      requireInitiator(locked);
      fire(locked, 'rescind');
      return locked.record.id;
    });
  }

  /**
   * Waives a declined (or removed) participant so the record can complete without them:
   * `complete-without` for parties, `waive` for witnesses and co-notarizers.
   */
  async waive(principal: Principal | null, idOrReference: string, participantId: string, move: 'complete_without' | 'waive_witness' | 'waive_co_notarizer'): Promise<string> {
    return this.change(principal, idOrReference, WAIVE_OPERATIONS[move], async (locked) => {
      const { record, now } = locked;
      requireInitiator(locked);
      const participant = this.participant(record, participantId);
      const rule = this.allow(move, record);
      if (!rule.roles.includes(participant.role)) {
        throw new DomainError('conflict', `This participant is a ${participant.role}; use the ${participant.role === 'witness' ? 'witness waiver' : 'complete-without'} route`);
      }
      if (!participant.declinedAt && !participant.removedAt) {
        throw new DomainError('conflict', 'Only a participant who declined or was removed can be waived');
      }
      if (participant.waivedAt) throw new DomainError('conflict', 'This participant is already waived');
      participant.waivedAt = now;
      locked.events.push(lifecycleEvent(record, move, record.status, participant.id, now));
      // In sequential order, going on without a party passes the turn to the next one.
      await this.deps.invitations.inviteDue(locked.em, record, now);
      await this.completeIfDone(locked);
      return record.id;
    });
  }

  /** Replaces a declined or removed witness with a new one, who is invited at once. */
  async replaceWitness(principal: Principal | null, idOrReference: string, participantId: string, input: NamedPartyInput): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.replaceWitness', async (locked) => {
      const { record, now, em } = locked;
      requireInitiator(locked);
      const old = this.participant(record, participantId);
      this.allow('replace_witness', record);
      if (old.role !== 'witness') throw new DomainError('conflict', 'Only a witness can be replaced');
      if (!old.declinedAt && !old.removedAt) throw new DomainError('conflict', 'Only a witness who declined or was removed can be replaced');
      if (old.waivedAt) throw new DomainError('conflict', 'This witness is waived: the record goes on without them');
      const issues = new IssueCollector();
      const [replacement] = normalizeParties(issues, 'witnesses', [input], LIMITS.witnesses);
      const active = record.participants.getItems().filter((p) => p !== old && !p.removedAt);
      const asParty = (p: Participant) => ({ displayName: p.displayName ?? '', contactPointType: p.contactPointType, contactPointValue: p.contactPointValue ?? '' });
      // As at creation: nobody is named twice, the initiator included.
      const initiator = active.find((p) => p.role === 'initiator');
      validateParticipantsForType(
        issues,
        record.type,
        active.filter((p) => p.role === 'party').map(asParty),
        [...active.filter((p) => p.role === 'witness').map(asParty), ...(replacement ? [replacement] : [])],
        initiator?.contactPointValue ? { type: initiator.contactPointType, value: initiator.contactPointValue } : null,
      );
      const activeWitnesses = active.filter((p) => p.role === 'witness' && !p.declinedAt && !p.waivedAt).length;
      if (activeWitnesses >= LIMITS.witnesses) issues.add([], `At most ${LIMITS.witnesses} active witnesses`, 'too_many');
      issues.throwIfAny();
      old.removedAt = now;
      const created = em.create(Participant, {
        record,
        role: 'witness',
        position: Math.max(...record.participants.getItems().map((p) => p.position)) + 1,
        ...replacement!,
        invitedAt: now,
      });
      record.participants.add(created);
      locked.events.push(lifecycleEvent(record, 'replace_witness', record.status, created.id, now));
      // Invited now, or in sequential order once every party has signed.
      await this.deps.invitations.inviteDue(em, record, now);
      return record.id;
    });
  }

  /**
   * Sends the invitation again (rate-limited per participant); never to someone whose turn has not
   * come. The count and the outbox row are written in the record's transaction: a resend is counted
   * exactly when it is queued, and a refused one (429) writes neither.
   */
  async resendInvitation(principal: Principal | null, idOrReference: string, participantId: string): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.resendInvitation', async (locked) => {
      const { record } = locked;
      requireInitiator(locked);
      const participant = this.participant(record, participantId);
      this.allow('resend_invitation', record);
      if (participant.role === 'initiator' || participant.declinedAt || participant.waivedAt || participant.removedAt) {
        throw new DomainError('conflict', 'This participant has no open invitation');
      }
      if (participant.confirmedVersion === record.currentVersion) throw new DomainError('conflict', 'This participant already signed the current version');
      const notYet = turnClosed(record.signingOrder, record.participants.getItems(), participant.id, record.currentVersion);
      if (notYet) throw new DomainError('invalid_transition', `No invitation to resend yet: ${notYet.replace(/^Not your turn yet: /, '')}`);
      await this.deps.rateLimiter.hit(locked.em, `resend:${participantId}`, { limit: this.deps.settings.resendsPerHour, windowSeconds: 3600, name: 'invitation_resends' }, 'invitation resends');
      await this.deps.invitations.resend(locked.em, record, participant);
      return record.id;
    });
  }

  /** Pending records whose lapse has passed become expired. Idempotent; safe on several instances. */
  async expireDue(): Promise<number> {
    const now = this.deps.clock.now();
    const pending = { $in: ['pending_confirmation', 'counter_under_review'] as SignedRecord['status'][] };
    const due = await this.deps.orm.em.fork().find(SignedRecord, { status: pending, expiresAt: { $lte: now } }, { fields: ['id'] });
    let expired = 0;
    for (const { id } of due) {
      const events: RecordLifecycleEvent[] = [];
      const done = await this.deps.orm.em
        .fork()
        .transactional(async (em) => {
          const record = await em.findOne(SignedRecord, { id, status: pending, expiresAt: { $lte: now } }, { lockMode: LockMode.PESSIMISTIC_WRITE_OR_FAIL });
          if (!record) return false;
          fire({ record, events, now }, 'lapse');
          await this.deps.events.write(em, events.map(lifecycle));
          return true;
        })
        .catch((error: unknown) => {
          // Locked by another instance right now (55P03): that one expires it. Anything else is real.
          if (isLockNotAvailable(error)) return false;
          throw error;
        });
      if (done) expired += 1;
      this.deps.events.committed();
    }
    return expired;
  }

  // ---- internals -------------------------------------------------------------------------------

  private async change<T>(principal: Principal | null, idOrReference: string, operation: ScopedOperation, work: (locked: LockedRecord) => Promise<T>, within?: SharedTransaction): Promise<T> {
    return withLockedRecord(this.deps.orm, this.deps.events, () => this.deps.clock.now(), principal, idOrReference, operation, work, within);
  }

  /** The participant-level table decides in which record statuses (and types) a move is possible. */
  private allow(move: ParticipantMove, record: SignedRecord) {
    return participantMove(move, record.status, record.type);
  }

  private participant(record: SignedRecord, participantId: string): Participant {
    const participant = record.participants.getItems().find((p) => p.id === participantId);
    if (!participant) throw DomainError.notFound('Participant');
    return participant;
  }

  private async completeIfDone(locked: LockedRecord): Promise<void> {
    locked.events.push(...(await completeIfAllSigned(locked.em, locked.record, locked.now)));
  }
}

function isLockNotAvailable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string };
  return code === '55P03' || /could not obtain lock/i.test(message ?? '');
}
