import { backoffStrategies, type Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { OutboxSubscriber } from '../domain/outbox/dispatcher.js';
import type { SealArtifacts } from '../domain/sealing/artifacts-service.js';
import type { SealingSweep } from '../domain/sealing/sealing-sweep.js';
import { isSealingEvent } from '../domain/shared/events.js';
import { defineJob, tracedData } from './queue.js';

const SEAL_ARTIFACTS_JOB = 'sealing.make-artifacts';
const SEALING_SWEEP_JOB = 'sealing.sweep';

type SealArtifactsData = { recordId: string; traceparent?: string };

/**
 * Makes a sealed record's PDF and card. Enqueued once per record through the outbox (a unique job),
 * retried with exponential backoff; the sweep below re-enqueues anything a lost job left behind, so
 * a seal never waits silently forever.
 */
export function defineSealArtifactsJob(agenda: Agenda, artifacts: SealArtifacts, logger: Logger, workers: number): void {
  defineJob<SealArtifactsData>(
    agenda,
    SEAL_ARTIFACTS_JOB,
    async (job) => {
      const { recordId } = job.attrs.data;
      const made = await artifacts.make(recordId);
      logger.info({ recordId, pdf: made.pdf?.sha256 ?? null, padesLevel: made.pdf?.level ?? null, card: made.card?.sha256 ?? null }, 'sealed artifacts ready');
    },
    // Twice the render threads: while one job waits on the database or signs, another's drawing runs.
    { concurrency: 2 * workers, backoff: backoffStrategies.exponential({ delay: 2000, maxRetries: 10 }) },
  );
}

export function enqueueSealArtifacts(agenda: Agenda, recordId: string): Promise<unknown> {
  // The job continues the trace of the delivery (and so of the seal) that enqueued it.
  return agenda.create<SealArtifactsData>(SEAL_ARTIFACTS_JOB, tracedData(agenda, { recordId })).unique({ 'data.recordId': recordId }).save();
}

/** The outbox subscriber that turns "record sealed" into its artifact job. */
export function sealingJobsSubscriber(agenda: Agenda): OutboxSubscriber {
  return {
    name: 'sealing-jobs',
    deliver: async (event) => {
      if (isSealingEvent(event)) await enqueueSealArtifacts(agenda, event.data.recordId);
    },
    // A seal enqueues work in this process: it waits for the dispatcher. Nothing else concerns this subscriber.
    notifications: (event) => (isSealingEvent(event) ? undefined : []),
  };
}

/** Every minute: sealed records still missing an artifact get their job again (and are logged). */
export function defineSealingSweepJob(agenda: Agenda, sweep: SealingSweep, logger: Logger): void {
  defineJob(agenda, SEALING_SWEEP_JOB, async () => {
    const waiting = await sweep.recordsMissingArtifacts();
    if (waiting.length > 0) logger.warn({ records: waiting.length }, 'sealed records still missing artifacts: re-enqueued');
    for (const recordId of waiting) await enqueueSealArtifacts(agenda, recordId);
  });
}

export async function scheduleSealingSweep(agenda: Agenda): Promise<void> {
  await agenda.every('1 minute', SEALING_SWEEP_JOB);
}
