import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { AnchoringService } from '../domain/anchoring/anchoring-service.js';
import type { OutboxSubscriber } from '../domain/outbox/dispatcher.js';
import { isSealingEvent } from '../domain/shared/events.js';
import { noTracing, type Tracing } from '../domain/shared/tracing.js';
import { defineJob } from './queue.js';

const ANCHORING_JOB = 'anchoring.tick';

/**
 * Anchors waiting seals and moves the transaction in flight on. Runs every few seconds on whichever
 * instance holds the anchoring lock, and at once after a seal; safe to run any number of times.
 */
export function defineAnchoringJob(agenda: Agenda, anchoring: AnchoringService, logger: Logger): void {
  defineJob(agenda, ANCHORING_JOB, async () => {
    const { confirmed, prepared } = await anchoring.tick();
    if (confirmed || prepared) logger.debug({ confirmed, prepared }, 'anchoring pass');
  });
}

export async function scheduleAnchoring(agenda: Agenda): Promise<void> {
  await agenda.every('5 seconds', ANCHORING_JOB);
}

/** A seal starts an anchoring pass now rather than at the next tick (this instance, in the background). */
export function anchoringKickSubscriber(anchoring: AnchoringService, logger: Logger, tracing: Tracing = noTracing): OutboxSubscriber {
  let running: Promise<void> | null = null;
  let again = false;
  const kick = (): void => {
    if (running) {
      again = true;
      return;
    }
    // A child of the seal's delivery (the context the kick was called in): the seal's trace shows its anchoring.
    running = tracing
      .inSpan('anchoring settle', {}, () => anchoring.settle())
      .catch((error: unknown) => logger.error({ err: error }, 'anchoring pass failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  };
  return {
    name: 'anchoring-kick',
    deliver: async (event) => {
      if (isSealingEvent(event)) setImmediate(kick);
    },
    // A seal kicks the anchoring pass in this process: it waits for the dispatcher.
    notifications: (event) => (isSealingEvent(event) ? undefined : []),
  };
}
