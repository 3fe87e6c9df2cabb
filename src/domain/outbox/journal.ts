import { wrap, type EntityManager } from '@mikro-orm/postgresql';
import { Participant, SignedRecord } from '../records/entities.js';
import { preparedQuery } from '../shared/sql.js';
import { nextAuditEntries, rememberAuditHead, type AuditActorRole, type AuditMove, type AuditRow } from '../records/audit-trail.js';
import { lockRecordRow } from '../records/record-access.js';
import { sealRecord, type SealContext } from '../sealing/seal.js';
import { isSealingEvent, type DomainEvent, type DomainEvents } from '../shared/events.js';
import { PUBSUB_CHANNEL } from '../shared/record-changes.js';
import type { OutboxSubscriber } from './dispatcher.js';
import { leftForDispatcher } from './entities.js';
import { markClaimCommitted } from '../idempotency/claim-context.js';
import { INITIATOR_MOVES, SYSTEM_MOVES } from '../records/lifecycle.js';
import type { Instruments } from '../shared/instruments.js';

/** Seals written in a transaction not yet committed, by its entity manager: counted at its commit. */
const sealsAwaitingCommit = new WeakMap<object, number>();


/**
 * Events every subscriber delivers by notifying alone (`OutboxSubscriber.notifications`) are sent with
 * the commit of the change that writes them: their outbox rows are written delivered, and the
 * dispatcher is woken only when a transaction that left it events commits (`afterCommit`).
 */
export type InlineDelivery = { subscribers: readonly OutboxSubscriber[]; wake: () => void };

/**
 * Where every change records what happened, in the change's own transaction: the record's
 * hash-chained audit trail, the seal of a record that moved to `sealed` (its metadata commits to
 * the trail up to that moment), and the outbox. Without `inline`, the dispatcher delivers every event
 * after the commit (`onCommitted` should wake it).
 */
export class EventJournal implements DomainEvents {
  constructor(
    private readonly deps: {
      sealContext: SealContext;
      onCommitted?: () => void;
      inline?: InlineDelivery | null;
      /** The current trace's W3C traceparent (tracing on), stored with the events: their delivery continues it. */
      traceparent?: () => string | null;
      /** Seals are counted here, where every seal is written (`sealed`, once its transaction commits). */
      instruments?: Instruments;
    },
  ) {}

  async write(em: EntityManager, events: readonly DomainEvent[]): Promise<void> {
    if (events.length === 0) return;
    const byRecord = new Map<string, DomainEvent[]>();
    for (const event of events) byRecord.set(event.data.recordId, [...(byRecord.get(event.data.recordId) ?? []), event]);
    const entries: AuditRow[] = [];
    // Several records in one change (an amendment sealing supersedes its predecessor): lock in id order.
    for (const recordId of [...byRecord.keys()].sort()) {
      await lockRecordRow(em, recordId);
      entries.push(...(await this.journalRecord(em, recordId, byRecord.get(recordId)!)));
    }
    const left = await writeJournal(em, entries, events, this.inlineNotifications(events), this.dispatchedWhen(events), this.deps.traceparent?.() ?? null);
    // The request's Idempotency-Key claim, if any, commits with the change it ran.
    await markClaimCommitted(em, events[0]!.data.recordId);
    // The change's own entities too: what the change wrote is in the database before it goes on.
    await em.flush();
    if (left > 0 && this.deps.inline) {
      if (em.isInTransaction()) leftForDispatcher.add(em);
      else this.deps.inline.wake();
    }
    let seals = 0;
    for (const event of events) if (isSealingEvent(event)) seals += 1;
    if (seals === 0) return;
    if (em.isInTransaction()) sealsAwaitingCommit.set(em, (sealsAwaitingCommit.get(em) ?? 0) + seals);
    else this.deps.instruments?.sealed(seals);
  }

  committed(): void {
    this.deps.onCommitted?.();
  }

  /**
   * The ORM's `afterTransactionCommit` for the transaction of `em` (the one `write` was given): the
   * dispatcher is woken if it has work from it. Changes journal in a transaction of their own or in a
   * shared one (`SharedTransaction`), never in a nested `transactional`: the release of a savepoint
   * would wake the dispatcher before the enclosing commit, and those events would wait for its poll.
   */
  afterCommit(em: object): void {
    const seals = sealsAwaitingCommit.get(em);
    if (seals !== undefined && sealsAwaitingCommit.delete(em)) this.deps.instruments?.sealed(seals);
    if (!leftForDispatcher.delete(em)) return;
    this.deps.inline?.wake();
  }

  /**
   * Per event, the notifications that deliver it with the change's commit, or null when it must wait
   * for the dispatcher. Per record, once one event waits, the ones after it wait too (the dispatcher
   * delivers after the commit: an event notified at the commit would overtake it).
   */
  private inlineNotifications(events: readonly DomainEvent[]): (readonly string[] | null)[] {
    const waiting = new Set<string>();
    return events.map((event) => {
      if (!this.deps.inline || waiting.has(event.data.recordId)) return null;
      const payloads: string[] = [];
      for (const subscriber of this.deps.inline.subscribers) {
        const own = subscriber.notifications?.(event);
        if (own === undefined) {
          waiting.add(event.data.recordId);
          return null;
        }
        payloads.push(...own);
      }
      return payloads;
    });
  }

  /** The subscribers' conditions under which these events must wait for the dispatcher (`OutboxSubscriber.dispatchedWhen`), or null. */
  private dispatchedWhen(events: readonly DomainEvent[]): string | null {
    const conditions = new Set<string>();
    for (const subscriber of this.deps.inline?.subscribers ?? []) {
      for (const event of events) {
        const condition = subscriber.dispatchedWhen?.(event);
        if (condition) conditions.add(condition);
      }
    }
    return conditions.size > 0 ? [...conditions].map((c) => `(${c})`).join(' or ') : null;
  }

  /** The record's audit entries for these events, still to be written; a seal's are written first. */
  private async journalRecord(em: EntityManager, recordId: string, events: readonly DomainEvent[]): Promise<AuditRow[]> {
    let waiting: AuditMove[] = [];
    for (const event of events) {
      const move = await this.auditMove(em, event);
      if (!move) continue;
      if (isSealingEvent(event)) {
        // The seal commits to every entry before it; its own entry carries the seal's hash.
        const before = await nextAuditEntries(em, recordId, waiting);
        await writeJournal(em, before, []);
        await em.flush();
        waiting = [];
        // The trail's head is the entry just written (we hold the record's lock): neither the seal's
        // metadata nor its own entry reads it again.
        const written = before.at(-1);
        const head = written ? { seq: written.seq, entryHash: written.entryHash } : undefined;
        const record = loadedWithParticipants(em, recordId) ?? (await em.findOneOrFail(SignedRecord, { id: recordId }, { populate: ['participants'] }));
        const sealed = await sealRecord(em, record, record.sealedAt ?? new Date(event.data.at), this.deps.sealContext, head);
        if (head) rememberAuditHead(em, recordId, head);
        move.details = { ...move.details, metadata_hash: sealed.metadataHash };
      }
      waiting.push(move);
    }
    return nextAuditEntries(em, recordId, waiting);
  }

  private async auditMove(em: EntityManager, event: DomainEvent): Promise<AuditMove | null> {
    const at = new Date(event.data.at);
    switch (event.type) {
      case 'record_lifecycle': {
        const { trigger, participantId, recordVersion, toStatus } = event.data;
        return { at, actorRole: await this.actor(em, trigger, participantId), move: trigger, version: recordVersion, details: { to_status: toStatus } };
      }
      case 'signature_progress': {
        const { event: step, participantId, recordVersion, methodType } = event.data;
        if (step === 'method_pending') return null;
        return { at, actorRole: await this.actor(em, step, participantId), move: step, version: recordVersion, details: methodType ? { method_type: methodType } : {} };
      }
      case 'record_artifact':
        return null;
    }
  }

  private async actor(em: EntityManager, move: string, participantId: string | null): Promise<AuditActorRole> {
    if (SYSTEM_MOVES.has(move)) return 'system';
    if (INITIATOR_MOVES.has(move) || !participantId) return 'initiator';
    // Usually loaded by the change itself (a ceremony step, a lifecycle move): no query then.
    const known = em.getUnitOfWork().getById(Participant, participantId);
    const participant = known && wrap(known).isInitialized() ? known : await em.findOne(Participant, { id: participantId }, { fields: ['role'] });
    return participant?.role ?? 'initiator';
  }
}

/**
 * Audit entries and outbox events in one statement of fixed text, in the change's transaction: no
 * entities (nothing reads them back in the change), one round trip. Outbox ids follow the order of
 * `events`, which is the order the dispatcher delivers them in.
 *
 * `notifications[i]`: the NOTIFY payloads that deliver `events[i]` with the commit, or null (it waits
 * for the dispatcher). They are sent, and those events written delivered, only when none of these
 * records has an event still waiting for the dispatcher (committed before this statement, or claimed
 * by a dispatcher that has not committed): a notification never overtakes an earlier event of its
 * record. Answers how many events were left for the dispatcher.
 */
async function writeJournal(
  em: EntityManager,
  entries: readonly AuditRow[],
  events: readonly DomainEvent[],
  notifications: readonly (readonly string[] | null)[] = events.map(() => null),
  dispatchedWhen: string | null = null,
  traceparent: string | null = null,
): Promise<number> {
  if (entries.length === 0 && events.length === 0) return 0;
  const now = new Date().toISOString();
  const column = <T>(values: (entry: AuditRow) => T) => entries.map(values);
  const [written] = await preparedQuery<{ left: number }>(
    em,
    `with waiting as (
       select exists (select 1 from outbox_events where record_id = any(?::uuid[]) and delivered_at is null)${dispatchedWhen ? ` or ${dispatchedWhen}` : ''} as held),
     audit as (
       insert into record_audit_entries (id, record_id, seq, at, actor_role, move, version, details, prev_hash, entry_hash)
       select * from unnest(?::uuid[], ?::uuid[], ?::int[], ?::timestamptz[], ?::text[], ?::text[], ?::int[], ?::jsonb[], ?::text[], ?::text[])),
     numbered as (
       select nextval('outbox_events_id_seq') as id, e.*
         from unnest(?::text[], ?::jsonb[], ?::uuid[], ?::timestamptz[], ?::boolean[]) with ordinality as e(type, payload, record_id, created_at, inline, n)),
     outbox as (
       insert into outbox_events (id, type, payload, record_id, created_at, delivered_at, traceparent)
       select e.id, e.type, e.payload, e.record_id, e.created_at, case when e.inline and not w.held then e.created_at end, ?::text
         from numbered e cross join waiting w
        order by e.n
       returning delivered_at),
     -- Each notification carries its event's sequence number (a subscriber's cursor), put first in its JSON object.
     notified as (
       select pg_notify(?, '{"seq":"' || e.id || '",' || substr(m.payload, 2))
         from unnest(?::text[], ?::int[]) with ordinality as m(payload, event_n, n) join numbered e on e.n = m.event_n cross join waiting w
        where not w.held order by m.n)
     -- Reading notified is what runs it (a SELECT in WITH runs only when read).
     select (select count(*) from outbox where delivered_at is null)::int as left, (select count(*) from notified)::int as notified`,
    [
      [...new Set(events.map((event) => event.data.recordId))],
      column((e) => e.id),
      column((e) => e.recordId),
      column((e) => e.seq),
      column((e) => e.at.toISOString()),
      column((e) => e.actorRole),
      column((e) => e.move),
      column((e) => e.version),
      column((e) => JSON.stringify(e.details)),
      column((e) => e.prevHash),
      column((e) => e.entryHash),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify(event.data)),
      events.map((event) => event.data.recordId),
      events.map(() => now),
      notifications.map((payloads) => payloads !== null),
      traceparent,
      PUBSUB_CHANNEL,
      notifications.flatMap((payloads) => payloads ?? []),
      notifications.flatMap((payloads, index) => (payloads ?? []).map(() => index + 1)),
    ],
  );
  return written?.left ?? 0;
}

/** The record as this change holds it, when it holds it with its participants (a sealing finalize does). */
function loadedWithParticipants(em: EntityManager, recordId: string): SignedRecord | null {
  const record = em.getUnitOfWork().getById(SignedRecord, recordId);
  return record && wrap(record).isInitialized() && record.participants.isInitialized() ? record : null;
}
