import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { RecordLifecycleEvent } from '../shared/events.js';
import { SignedRecord, type Participant } from './entities.js';
import { transition } from './lifecycle.js';

/**
 * Participants whose signature on the current version the record needs before it can seal. A
 * participant who declined stays required (and blocks sealing) until the initiator completes
 * without them, waives or replaces them.
 */
function requiredSigners(record: SignedRecord): Participant[] {
  return record.participants.getItems().filter((p) => !p.removedAt && !p.waivedAt);
}

function allRequiredSigned(record: SignedRecord): boolean {
  return requiredSigners(record).every((p) => p.confirmedVersion === record.currentVersion);
}

/**
 * Fires `complete_signatures` when every required participant has finalized the current version of
 * a pending record; when the record is an amendment or a mutual cancellation, its predecessor
 * becomes `superseded` in the same transaction. Returns the events to announce after the commit.
 */
export async function completeIfAllSigned(em: EntityManager, record: SignedRecord, now: Date, participantId: string | null = null): Promise<RecordLifecycleEvent[]> {
  if (record.status !== 'pending_confirmation' || !allRequiredSigned(record)) return [];
  const events: RecordLifecycleEvent[] = [];
  const from = record.status;
  record.status = transition(from, 'complete_signatures');
  record.sealedAt = now;
  record.updatedAt = now;
  events.push(event(record, 'complete_signatures', from, participantId, now));
  if (record.supersedesRecordId) {
    const predecessor = await em.findOne(SignedRecord, { id: record.supersedesRecordId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (predecessor && predecessor.status === 'sealed') {
      predecessor.status = transition(predecessor.status, 'successor_sealed');
      predecessor.supersededByRecordId = record.id;
      predecessor.updatedAt = now;
      events.push(event(predecessor, 'successor_sealed', 'sealed', null, now));
    }
  }
  return events;
}

function event(record: SignedRecord, trigger: string, from: string, participantId: string | null, now: Date): RecordLifecycleEvent {
  return { recordId: record.id, trigger, fromStatus: from, toStatus: record.status, participantId, recordVersion: record.currentVersion, at: now.toISOString() };
}
