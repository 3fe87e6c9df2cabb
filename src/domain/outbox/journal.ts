import { wrap, type EntityManager } from '@mikro-orm/postgresql';
import { Participant, SignedRecord } from '../records/entities.js';
import { appendAudit, type AuditActorRole, type AuditMove } from '../records/audit-trail.js';
import { lockRecordRow } from '../records/record-access.js';
import { sealRecord, type SealContext } from '../sealing/seal.js';
import type { DomainEvent, DomainEvents, RecordLifecycleEvent } from '../shared/events.js';
import { OutboxEvent } from './entities.js';

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
    // Several records in one change (an amendment sealing supersedes its predecessor): lock in id order.
    for (const recordId of [...byRecord.keys()].sort()) {
      await lockRecordRow(em, recordId);
      await this.journalRecord(em, recordId, byRecord.get(recordId)!);
    }
    for (const event of events) em.create(OutboxEvent, { type: event.type, payload: event.data, recordId: event.data.recordId });
    await em.flush();
  }

  committed(): void {
    this.onCommitted();
  }

  private async journalRecord(em: EntityManager, recordId: string, events: readonly DomainEvent[]): Promise<void> {
    let waiting: AuditMove[] = [];
    for (const event of events) {
      const move = await this.auditMove(em, event);
      if (!move) continue;
      if (event.type === 'record_lifecycle' && isSealing(event.data)) {
        // The seal commits to every entry before it; its own entry carries the seal's hash.
        await appendAudit(em, recordId, waiting);
        await em.flush();
        waiting = [];
        const record = await em.findOneOrFail(SignedRecord, { id: recordId }, { populate: ['participants'] });
        const sealed = await sealRecord(em, record, record.sealedAt ?? new Date(event.data.at), this.seal);
        move.details = { ...move.details, metadata_hash: sealed.metadataHash };
      }
      waiting.push(move);
    }
    await appendAudit(em, recordId, waiting);
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

function isSealing(event: RecordLifecycleEvent): boolean {
  return event.toStatus === 'sealed' && event.fromStatus !== 'sealed';
}
