import { Repeater } from '@repeaterjs/repeater';
import type { PubSub } from 'type-graphql';
import type { RecordService } from '../domain/records/record-service.js';
import type { DomainEvents, RecordLifecycleEvent, SignatureProgressEvent } from '../domain/shared/events.js';
import type { LiveUpdates } from './context.js';

const SIGNATURE_PROGRESS = 'SIGNATURE_PROGRESS';
const RECORD_LIFECYCLE = 'RECORD_LIFECYCLE';
/** Every record's activity on one topic, for dashboards; each subscriber sees only what it may read. */
const RECORD_ACTIVITY = 'RECORD_ACTIVITY';

export type RecordActivity = {
  recordId: string;
  kind: 'lifecycle' | 'signature';
  /** The lifecycle trigger, or the ceremony event. */
  event: string;
  status: string | null;
  participantId: string | null;
  at: string;
};

/** Carries domain events onto the (cross-process) PubSub: one topic per record, and the activity feed. */
export function publishDomainEvents(pubSub: PubSub): DomainEvents {
  return {
    signatureProgress: (event) => {
      pubSub.publish(SIGNATURE_PROGRESS, event.recordId, event);
      const activity: RecordActivity = { recordId: event.recordId, kind: 'signature', event: event.event, status: null, participantId: event.participantId, at: event.at };
      pubSub.publish(RECORD_ACTIVITY, activity);
    },
    recordLifecycle: (event) => {
      pubSub.publish(RECORD_LIFECYCLE, event.recordId, event);
      const activity: RecordActivity = { recordId: event.recordId, kind: 'lifecycle', event: event.trigger, status: event.toStatus, participantId: event.participantId, at: event.at };
      pubSub.publish(RECORD_ACTIVITY, activity);
    },
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
    recordActivity: async (principal) => {
      // Fails at once without credentials or the retrieve scope.
      await records.list(principal, { limit: 1 });
      const feed = pubSub.subscribe(RECORD_ACTIVITY) as AsyncIterable<RecordActivity>;
      // Readable records stay readable for a subscriber; others are asked again (an invitation may come later).
      const readable = new Set<string>();
      return new Repeater<RecordActivity>(async (push, stop) => {
        const iterator = feed[Symbol.asyncIterator]();
        void stop.then(() => iterator.return?.());
        for (;;) {
          const next = await Promise.race([iterator.next(), stop.then(() => null)]);
          if (!next || next.done) break;
          const activity = next.value;
          if (readable.has(activity.recordId) || (await records.isReadable(principal, activity.recordId))) {
            readable.add(activity.recordId);
            await push(activity);
          }
        }
      });
    },
  };
}
