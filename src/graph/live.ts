import type { PubSub } from 'type-graphql';
import type { RecordService } from '../domain/records/record-service.js';
import type { DomainEvents, RecordLifecycleEvent, SignatureProgressEvent } from '../domain/shared/events.js';
import type { LiveUpdates } from './context.js';

const SIGNATURE_PROGRESS = 'SIGNATURE_PROGRESS';
const RECORD_LIFECYCLE = 'RECORD_LIFECYCLE';

/** Carries domain events onto the (cross-process) PubSub, one topic per record. */
export function publishDomainEvents(pubSub: PubSub): DomainEvents {
  return {
    signatureProgress: (event) => pubSub.publish(SIGNATURE_PROGRESS, event.recordId, event),
    recordLifecycle: (event) => pubSub.publish(RECORD_LIFECYCLE, event.recordId, event),
  };
}

/** Opens a stream only for a subscriber who may read the record (else the read's own not_found). */
export function liveUpdates(pubSub: PubSub, records: RecordService): LiveUpdates {
  return {
    signatureProgress: async (principal, recordIdOrReference) => {
      const record = await records.get(principal, recordIdOrReference);
      return pubSub.subscribe(SIGNATURE_PROGRESS, record.id) as AsyncIterable<SignatureProgressEvent>;
    },
    recordLifecycle: async (principal, recordIdOrReference) => {
      const record = await records.get(principal, recordIdOrReference);
      return pubSub.subscribe(RECORD_LIFECYCLE, record.id) as AsyncIterable<RecordLifecycleEvent>;
    },
  };
}
