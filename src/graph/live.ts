import { Repeater } from '@repeaterjs/repeater';
import type { PubSub } from 'type-graphql';
import type { RecordService } from '../domain/records/record-service.js';
import type { OutboxSubscriber } from '../domain/outbox/dispatcher.js';
import type { DomainEvent, RecordLifecycleEvent, SignatureProgressEvent } from '../domain/shared/events.js';
import type { Message, PostgresPubSub } from './pubsub.js';
import type { LiveUpdates, RecordActivity } from './context.js';

export type { RecordActivity };

const SIGNATURE_PROGRESS = 'SIGNATURE_PROGRESS';
const RECORD_LIFECYCLE = 'RECORD_LIFECYCLE';
/** Every record's activity on one topic, for dashboards; each subscriber sees only what it may read. */
export const RECORD_ACTIVITY = 'RECORD_ACTIVITY';

/** The notifications that carry an event: its record's own topic (signatures, lifecycle), and the activity feed. */
function messagesOf(event: DomainEvent): Message[] {
  switch (event.type) {
    case 'signature_progress': {
      const e = event.data;
      const activity: RecordActivity = { recordId: e.recordId, kind: 'signature', event: e.event, status: null, participantId: e.participantId, at: e.at };
      return [
        [SIGNATURE_PROGRESS, e.recordId, e],
        [RECORD_ACTIVITY, activity],
      ];
    }
    case 'record_lifecycle': {
      const e = event.data;
      const activity: RecordActivity = { recordId: e.recordId, kind: 'lifecycle', event: e.trigger, status: e.toStatus, participantId: e.participantId, at: e.at };
      return [
        [RECORD_LIFECYCLE, e.recordId, e],
        [RECORD_ACTIVITY, activity],
      ];
    }
    case 'record_artifact': {
      const e = event.data;
      const activity: RecordActivity = { recordId: e.recordId, kind: 'artifact', event: `${e.artifact}_${e.state}`, status: null, participantId: null, at: e.at };
      return [[RECORD_ACTIVITY, activity]];
    }
  }
}

/**
 * Carries outbox events onto the cross-process PubSub. Delivering is only notifying, so the journal
 * usually sends the notifications with the commit of the change itself; otherwise the dispatcher
 * sends them with its own commit. Either way each goes out exactly once, when its transaction commits.
 */
export function liveSubscriber(pubSub: PostgresPubSub): OutboxSubscriber {
  return {
    name: 'graphql-pubsub',
    deliver: async (event, _client, atCommit) => atCommit(pubSub.notifySql(messagesOf(event))),
    notifications: (event) => pubSub.payloads(messagesOf(event)),
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

