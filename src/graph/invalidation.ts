import type { PubSub } from 'type-graphql';
import { RECORD_ACTIVITY } from './live.js';

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

/** Calls `changed` on every record activity of any instance (caches of public answers drop theirs); returns the stop. */
export function watchRecordActivity(pubSub: PubSub, changed: () => void): () => Promise<void> {
  return watchTopic(pubSub, RECORD_ACTIVITY, changed);
}

/**
 * Credential revocations and identity merges across instances: `changed()` drops this instance's
 * reused principals at once (`forget`) and tells every other instance over the PubSub
 * (LISTEN/NOTIFY), which forgets its own on arrival.
 */
export function watchCredentialChanges(pubSub: PubSub, forget: () => void): { changed: () => void; stop: () => Promise<void> } {
  return {
    changed: () => {
      forget();
      pubSub.publish(CREDENTIALS_CHANGED, {});
    },
    stop: watchTopic(pubSub, CREDENTIALS_CHANGED, forget),
  };
}
