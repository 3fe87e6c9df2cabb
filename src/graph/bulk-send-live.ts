import { Repeater } from '@repeaterjs/repeater';
import type { Principal } from '../domain/identity/principal.js';
import type { BulkSendService, BulkSendView } from '../domain/bulk-sends/bulk-send-service.js';
import type { PostgresPubSub } from './pubsub.js';

/** Told (on every instance) after each change of a bulk send's counts or status: `[topic, bulkSendId, {}]`. */
export const BULK_SEND_PROGRESS = 'BULK_SEND_PROGRESS';

/** How long a subscriber's next read waits after a change, so that a fast batch is read a few times a second, not once per row. */
const READ_EVERY_MS = 200;

/**
 * A bulk send's views for a subscriber: the current one at once, then a fresh one after changes
 * (notifications only say "changed", from whichever instance runs the job), until it is completed.
 * Every view is read with the subscriber's own access check: one who lost access is ended with not_found.
 */
export function bulkSendProgress(pubSub: PostgresPubSub, bulkSends: BulkSendService) {
  return async (principal: Principal | null, id: string): Promise<AsyncIterable<BulkSendView>> => {
    const first = await bulkSends.get(principal, id);
    const changes = pubSub.subscribe(BULK_SEND_PROGRESS, first.id)[Symbol.asyncIterator]();
    // The first next() registers the listener: a change from now on is heard.
    let pending = changes.next();
    return new Repeater<BulkSendView>(async (push, stop) => {
      void stop.then(() => changes.return?.());
      // Read after listening: nothing falls between the first view and the notifications.
      let current = first.status === 'completed' ? first : await bulkSends.get(principal, first.id);
      await push(current);
      while (current.status !== 'completed') {
        const next = await Promise.race([pending, stop.then(() => null)]);
        if (!next || next.done) break;
        await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
        // Notifications that came meanwhile are covered by the read below.
        pending = changes.next();
        current = await bulkSends.get(principal, first.id);
        await push(current);
      }
      stop();
    });
  };
}
