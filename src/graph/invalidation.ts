import type { PubSub } from 'type-graphql';
import { RECORD_ACTIVITY } from './live.js';
import { LISTENER_RESUMED } from './pubsub.js';
import { RECORDS_CHANGED } from '../domain/shared/record-changes.js';

const CREDENTIALS_CHANGED = 'CREDENTIALS_CHANGED';

/** Calls `onEvent` for every message on a topic, from any instance; returns the stop. */
function watchTopic(pubSub: PubSub, topic: string, onEvent: () => void): () => Promise<void> {
  const events = pubSub.subscribe(topic)[Symbol.asyncIterator]();
  void (async () => {
    for (let next = await events.next(); !next.done; next = await events.next()) onEvent();
  })();
  return async () => {
    await events.return?.();
  };
}

/** `watchTopic` on several topics at once; returns the one stop. */
function watchTopics(pubSub: PubSub, topics: readonly string[], onEvent: () => void): () => Promise<void> {
  const stops = topics.map((topic) => watchTopic(pubSub, topic, onEvent));
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

/**
 * Calls `changed` whenever a record's view may have changed, on any instance: every domain event,
 * every committed write to the tables views are made from, and the return of a lost LISTEN
 * connection (what was notified meanwhile is unknown). Returns the stop.
 */
export function watchRecordChanges(pubSub: PubSub, changed: () => void): () => Promise<void> {
  return watchTopics(pubSub, [RECORD_ACTIVITY, RECORDS_CHANGED, LISTENER_RESUMED], changed);
}

/**
 * Credential revocations and identity merges across instances: `changed()` drops this instance's
 * reused principals at once (`forget`), tells every other instance over the PubSub (LISTEN/NOTIFY),
 * which forgets its own on arrival, and advances the credential epoch (`advance`), which every
 * instance reads before it reuses a principal: so once `changed()` resolves, no instance accepts
 * the revoked credential, whether or not the notification has reached it yet.
 */
export function watchCredentialChanges(
  pubSub: PubSub,
  forget: () => void,
  advance: () => Promise<void>,
): { changed: () => Promise<void>; stop: () => Promise<void> } {
  return {
    changed: async () => {
      forget();
      pubSub.publish(CREDENTIALS_CHANGED, {});
      await advance();
    },
    // After a lost LISTEN connection, a revocation may have gone unheard: forget everything.
    stop: watchTopics(pubSub, [CREDENTIALS_CHANGED, LISTENER_RESUMED], forget),
  };
}
