import { wrap, type EntityManager } from '@mikro-orm/postgresql';
import { Participant, SignedRecord } from '../records/entities.js';
import { preparedQuery } from '../database.js';
import { nextAuditEntries, type AuditActorRole, type AuditMove, type AuditRow } from '../records/audit-trail.js';
import { lockRecordRow } from '../records/record-access.js';
import { sealRecord, type SealContext } from '../sealing/seal.js';
import type { DomainEvent, DomainEvents, RecordLifecycleEvent } from '../shared/events.js';

/** Moves made by the initiator whatever participant they concern. */
const INITIATOR_MOVES = new Set([
  'edit_draft', 'submit', 'cancel_draft', 'rescind', 'resolve_counter', 'complete_without', 'waive_witness', 'waive_co_notarizer', 'replace_witness', 'resend_invitation',
]);
/** Moves the service makes on its own. */
const SYSTEM_MOVES = new Set(['lapse', 'complete_signatures', 'successor_sealed']);

/**
 * Where every change records what happened, in the change's own transaction: the record's
 * hash-chained audit trail, the seal of a record that moved to `sealed` (its metadata commits to
 * the trail up to that moment), and the outbox the dispatcher delivers after the commit.
 */
export class EventJournal implements DomainEvents {
  constructor(
    private readonly seal: SealContext,
    private readonly onCommitted: () => void = () => undefined,
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
    await writeJournal(em, entries, events);
    // The change's own entities too: what the change wrote is in the database before it goes on.
    await em.flush();
  }

  committed(): void {
    this.onCommitted();
  }

  /** The record's audit entries for these events, still to be written; a seal's are written first. */
  private async journalRecord(em: EntityManager, recordId: string, events: readonly DomainEvent[]): Promise<AuditRow[]> {
    let waiting: AuditMove[] = [];
    for (const event of events) {
      const move = await this.auditMove(em, event);
      if (!move) continue;
      if (event.type === 'record_lifecycle' && isSealing(event.data)) {
        // The seal commits to every entry before it; its own entry carries the seal's hash.
        await writeJournal(em, await nextAuditEntries(em, recordId, waiting), []);
        await em.flush();
        waiting = [];
        const record = await em.findOneOrFail(SignedRecord, { id: recordId }, { populate: ['participants'] });
        const sealed = await sealRecord(em, record, record.sealedAt ?? new Date(event.data.at), this.seal);
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
 */
async function writeJournal(em: EntityManager, entries: readonly AuditRow[], events: readonly DomainEvent[]): Promise<void> {
  if (entries.length === 0 && events.length === 0) return;
  const now = new Date().toISOString();
  const column = <T>(values: (entry: AuditRow) => T) => entries.map(values);
  await preparedQuery(
    em,
    `with audit as (
       insert into record_audit_entries (id, record_id, seq, at, actor_role, move, version, details, prev_hash, entry_hash)
       select * from unnest(?::uuid[], ?::uuid[], ?::int[], ?::timestamptz[], ?::text[], ?::text[], ?::int[], ?::jsonb[], ?::text[], ?::text[]))
     insert into outbox_events (type, payload, record_id, created_at)
     select type, payload, record_id, created_at from unnest(?::text[], ?::jsonb[], ?::uuid[], ?::timestamptz[]) with ordinality as e(type, payload, record_id, created_at, n)
      order by n`,
    [
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
    ],
  );
}

function isSealing(event: RecordLifecycleEvent): boolean {
  return event.toStatus === 'sealed' && event.fromStatus !== 'sealed';
}
