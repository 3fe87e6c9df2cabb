import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../identity/principal.js';
import { requireAccess, type ScopedOperation } from '../identity/operation-access.js';
import { DomainError } from '../shared/errors.js';
import { lifecycle, type DomainEvents, type RecordLifecycleEvent } from '../shared/events.js';
import { SignedRecord } from './entities.js';
import { findTransition, transition, type LifecycleTrigger } from './lifecycle.js';
import { findRecordAsReader } from './record-access.js';
import { actsAsInitiator, type Viewer } from './record-view.js';
import { readerOf } from '../teams/team-access.js';

export type LockedRecord = {
  em: EntityManager;
  record: SignedRecord;
  viewer: Viewer;
  caller: Principal;
  /** Journaled (audit trail, seal, outbox) before the commit; delivered after it, never before. */
  events: RecordLifecycleEvent[];
  now: Date;
};

/**
 * One transaction that several changes share (a notarization created, signed and sealed in one
 * call): each change runs on `em` instead of a transaction of its own. See `inOneTransaction`.
 */
export type SharedTransaction = { em: EntityManager };

/**
 * Runs `work` in one transaction: everything it changes commits together or not at all. After the
 * commit the outbox is told (its events go out).
 */
export async function inOneTransaction<T>(orm: MikroORM, events: DomainEvents, work: (within: SharedTransaction) => Promise<T>): Promise<T> {
  const result = await orm.em.fork().transactional(async (em) => work({ em }));
  events.committed();
  return result;
}

/**
 * Runs one change of one record: the access the operation declares, row lock with a fresh read (a racing request that
 * committed first is visible now, so its loser fails the table's guard instead of overwriting),
 * then the identity-graph read check. Events are journaled in the transaction and delivered after it.
 * `within`: the change is part of a shared transaction, which delivers them after its own commit.
 */
export async function withLockedRecord<T>(
  orm: MikroORM,
  events: DomainEvents,
  now: () => Date,
  principal: Principal | null,
  idOrReference: string,
  operation: ScopedOperation,
  work: (locked: LockedRecord) => Promise<T>,
  within?: SharedTransaction,
): Promise<T> {
  const caller = requireAccess(principal, operation);
  const pending: RecordLifecycleEvent[] = [];
  const change = async (em: EntityManager) => {
    const { record, viewer } = await findRecordAsReader(em, idOrReference, readerOf(caller), { lock: true });
    const result = await work({ em, record, viewer, caller, events: pending, now: now() });
    await events.write(em, pending.map(lifecycle));
    return result;
  };
  if (within) return change(within.em);
  const result = await orm.em.fork().transactional(change);
  events.committed();
  return result;
}

export function lifecycleEvent(record: SignedRecord, trigger: string, from: string, participantId: string | null, now: Date): RecordLifecycleEvent {
  return { recordId: record.id, trigger, fromStatus: from, toStatus: record.status, participantId, recordVersion: record.currentVersion, at: now.toISOString() };
}

/** Fires a row of the transition table on the locked record (its guard asked first) and records the event. */
export function fire(locked: Pick<LockedRecord, 'record' | 'events' | 'now'>, trigger: LifecycleTrigger, participantId: string | null = null): void {
  const { record, now } = locked;
  const from = record.status;
  // Only a row with a guard on the record's state reads its participants (a sweep's lapse loads none).
  const guarded = findTransition(from, trigger, record.type)?.refusal !== undefined;
  const state = guarded ? { type: record.type, currentVersion: record.currentVersion, participants: record.participants.getItems() } : undefined;
  record.status = transition(from, trigger, record.type, state);
  record.updatedAt = now;
  locked.events.push(lifecycleEvent(record, trigger, from, participantId, now));
}

/** The caller manages the locked record as its initiator may (`actsAsInitiator`: on a team's record, an admin too). */
export function requireInitiator(locked: Pick<LockedRecord, 'record' | 'viewer'>): void {
  if (!actsAsInitiator(locked.record, locked.viewer)) throw new DomainError('forbidden', 'Only the initiator (or an admin of its team) can do this');
}
