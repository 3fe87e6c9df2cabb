import { Repeater } from '@repeaterjs/repeater';
import type { RecordService } from '../domain/records/record-service.js';
import type { OutboxSubscriber } from '../domain/outbox/dispatcher.js';
import { DomainError } from '../domain/shared/errors.js';
import type { DomainEvent, RecordLifecycleEvent, SignatureProgressEvent } from '../domain/shared/events.js';
import type { EventCursors } from './event-cursors.js';
import type { Message, PostgresPubSub } from './pubsub.js';
import type { Cursored, LiveUpdates, RecordActivity } from './context.js';

;

const SIGNATURE_PROGRESS = 'SIGNATURE_PROGRESS';
const RECORD_LIFECYCLE = 'RECORD_LIFECYCLE';
/** Every record's activity on one topic, for dashboards; each subscriber sees only what it may read. */
export const RECORD_ACTIVITY = 'RECORD_ACTIVITY';

/**
 * Published (to every instance) when team access changed: a member removed or their role changed, a
 * team deleted. Open subscriptions to a team's records check their reader again.
 */
export const TEAM_ACCESS_CHANGED = 'TEAM_ACCESS_CHANGED';

/** A subscription resumed from a cursor replays at most this many events; more, and the client re-reads. */
const REPLAY_LIMIT = 500;
/**
 * Events of different records can commit out of the order they were written in: a resumed activity
 * feed also replays the events written this long before its cursor's (some the client may have).
 */
const FEED_OVERLAP_SECONDS = 10;

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
 * sends them with its own commit. Either way each goes out exactly once, when its transaction commits,
 * carrying its event's outbox sequence number (the journal adds it in SQL, where the number is made).
 */
export function liveSubscriber(pubSub: PostgresPubSub): OutboxSubscriber {
  return {
    name: 'graphql-pubsub',
    deliver: async (event, _client, atCommit, eventId) => atCommit(pubSub.notifySql(messagesOf(event), eventId)),
    notifications: (event) => pubSub.payloads(messagesOf(event)),
  };
}

/** An outbox event as the replay reads it. */
type OutboxRow = { seq: string; event: DomainEvent };

/**
 * Delivered outbox events after `afterSeq`, oldest first, at most `limit`: of one record (`recordId`)
 * or of every record, of the given types; `overlapSeconds` adds the events written that long before
 * `afterSeq`'s. Null when `afterSeq` is no longer kept (the outbox keeps a week).
 */
export type MissedEvents = (query: { afterSeq: string; recordId: string | null; types: readonly DomainEvent['type'][]; limit: number; overlapSeconds: number }) => Promise<OutboxRow[] | null>;

type Topic = { routingKey: string; recordId: string | null; types: readonly DomainEvent['type'][]; overlapSeconds: number };

/** Opens a stream only for a subscriber who may read the record (else the read's own not_found). */
export function liveUpdates(pubSub: PostgresPubSub, records: RecordService, missedEvents: MissedEvents, cursors: EventCursors): Omit<LiveUpdates, 'bulkSendProgress' | 'exportProgress'> {
  /**
   * The topic's live events, each with its cursor, after the ones missed since `after` (when given).
   * The live subscription starts first and the replay reads what was delivered before: nothing falls
   * between the two, and a live event the replay already gave is skipped.
   */
  const stream = async <T>(topic: Topic, after: string | null, stillReadable?: () => Promise<boolean>): Promise<AsyncIterable<Cursored<T>>> => {
    const live = pubSub.subscribeSequenced(topic.routingKey, topic.recordId ?? undefined)[Symbol.asyncIterator]();
    // The first next() registers the listener.
    let pending = live.next();
    let missed: OutboxRow[] = [];
    if (after !== null) {
      try {
        missed = await replay(topic, after);
      } catch (error) {
        await live.return?.();
        throw error;
      }
    }
    const replayed = new Set(missed.map((row) => row.seq));
    const withCursor = (payload: unknown, seq: string | null) => ({ ...(payload as T), cursor: seq === null ? null : cursors.encode(seq) }) as Cursored<T>;
    return new Repeater<Cursored<T>>(async (push, stop) => {
      void stop.then(() => live.return?.());
      if (stillReadable) {
        // A reader who lost access (removed from the record's team) is ended at once, on every instance.
        void onAccessChange(pubSub, stop, async () => {
          if (!(await stillReadable())) stop(DomainError.notFound('Record'));
        });
      }
      for (const row of missed) {
        for (const payload of payloadsOn(topic, row.event)) await push(withCursor(payload, row.seq));
      }
      for (;;) {
        const next = await Promise.race([pending, stop.then(() => null)]);
        if (!next || next.done) break;
        pending = live.next();
        const { payload, seq } = next.value;
        if (seq !== null && replayed.has(seq)) continue;
        await push(withCursor(payload, seq));
      }
    });
  };

  const replay = async (topic: Topic, after: string): Promise<OutboxRow[]> => {
    const afterSeq = cursors.decode(after);
    if (afterSeq === null) throw DomainError.invalid(['after'], 'Not a cursor this service gave out', 'invalid_cursor');
    const missed = await missedEvents({ afterSeq, recordId: topic.recordId, types: topic.types, limit: REPLAY_LIMIT + 1, overlapSeconds: topic.overlapSeconds });
    if (missed === null || missed.length > REPLAY_LIMIT) {
      throw DomainError.invalid(
        ['after'],
        missed === null
          ? 'This cursor is older than the events kept (a week): read the current state again, then subscribe without after'
          : `More than ${REPLAY_LIMIT} events happened after this cursor: read the current state again, then subscribe without after`,
        'resync_required',
      );
    }
    return missed;
  };

  return {
    signatureProgress: async (principal, recordIdOrReference, after) => {
      const record = await records.get(principal, recordIdOrReference);
      const recheck = record.teamId === null ? undefined : () => records.isReadable(principal, record.id);
      return stream<SignatureProgressEvent>({ routingKey: SIGNATURE_PROGRESS, recordId: record.id, types: ['signature_progress'], overlapSeconds: 0 }, after, recheck);
    },
    recordLifecycle: async (principal, recordIdOrReference, after) => {
      const record = await records.get(principal, recordIdOrReference);
      const recheck = record.teamId === null ? undefined : () => records.isReadable(principal, record.id);
      return stream<RecordLifecycleEvent>({ routingKey: RECORD_LIFECYCLE, recordId: record.id, types: ['record_lifecycle'], overlapSeconds: 0 }, after, recheck);
    },
    recordActivity: async (principal, after, teamId = null) => {
      // Fails at once without credentials or the retrieve scope (and, for a team's feed, a role in it).
      await records.list(principal, { limit: 1, teamId });
      const feed = await stream<RecordActivity>(
        { routingKey: RECORD_ACTIVITY, recordId: null, types: ['record_lifecycle', 'signature_progress', 'record_artifact'], overlapSeconds: FEED_OVERLAP_SECONDS },
        after,
      );
      // Readable records stay readable for a subscriber; others are asked again (an invitation may come later).
      const readable = new Set<string>();
      return new Repeater<Cursored<RecordActivity>>(async (push, stop) => {
        const iterator = feed[Symbol.asyncIterator]();
        void stop.then(() => iterator.return?.());
        // After a team access change, every record is asked again (a removed member stops seeing the team's).
        void onAccessChange(pubSub, stop, async () => readable.clear());
        for (;;) {
          const next = await Promise.race([iterator.next(), stop.then(() => null)]);
          if (!next || next.done) break;
          const activity = next.value;
          if (readable.has(activity.recordId) || (await records.isReadable(principal, activity.recordId, teamId))) {
            readable.add(activity.recordId);
            await push(activity);
          }
        }
      });
    },
  };
}

/** Runs `check` on every team access change (heard from any instance) until `stop` settles. */
async function onAccessChange(pubSub: PostgresPubSub, stop: Promise<unknown>, check: () => Promise<void>): Promise<void> {
  const changes = pubSub.subscribe(TEAM_ACCESS_CHANGED)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([changes.next(), stop.then(() => null)]);
      if (!next || next.done) break;
      await check().catch(() => undefined);
    }
  } finally {
    await changes.return?.();
  }
}

/** What a replayed event would have notified on this topic. */
function payloadsOn(topic: Topic, event: DomainEvent): unknown[] {
  return messagesOf(event)
    .filter(([routingKey, ...args]) => routingKey === topic.routingKey && (topic.recordId === null || args[0] === topic.recordId))
    .map((message) => message.at(-1));
}
