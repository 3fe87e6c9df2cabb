import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Clock } from '../domain/shared/clock.js';
import { SealingSweep } from '../domain/sealing/sealing-sweep.js';
import { anchoringKickSubscriber, defineAnchoringJob, scheduleAnchoring } from '../jobs/anchoring.job.js';
import { defineExpireRecordsJob, scheduleExpireRecords } from '../jobs/expire-records.job.js';
import { defineHousekeepingJob, scheduleHousekeeping } from '../jobs/housekeeping.job.js';
import { createQueue } from '../jobs/queue.js';
import { defineSealArtifactsJob, defineSealingSweepJob, scheduleSealingSweep, sealingJobsSubscriber } from '../jobs/seal-artifacts.job.js';
import type { PubSub } from 'type-graphql';
import type { Services } from './services.js';

/** One job: its definition (what runs) and its schedule (when, if recurring). */
type Job = { define: (agenda: Agenda) => void; schedule?: (agenda: Agenda) => Promise<unknown> };

/**
 * The job list, and the queue that runs it (Agenda on PostgreSQL, or MongoDB when configured);
 * outbox subscribers that enqueue work join the dispatcher here. Off when JOBS_ENABLED is false.
 */
export async function startJobs(
  config: Config,
  deps: { services: Services; orm: MikroORM; clock: Clock; pubSub: PubSub; logger: Logger; processEvery?: string | number | undefined },
): Promise<{ agenda: Agenda | null; stop: () => Promise<void>; close: () => Promise<void> }> {
  if (!config.jobsEnabled) return { agenda: null, stop: async () => undefined, close: async () => undefined };
  const { services, orm, clock, logger } = deps;
  const queue = await createQueue({
    databaseUrl: config.databaseUrl,
    mongodbUrl: config.mongodbUrl,
    logger,
    pubSub: deps.pubSub,
    lockLifetimeMs: config.jobLockSeconds * 1000,
    processEvery: deps.processEvery,
  });
  const { agenda } = queue;
  const anchoring = services.anchoring;
  const jobs: Job[] = [
    { define: (a) => defineHousekeepingJob(a, services.housekeeping, logger), schedule: scheduleHousekeeping },
    { define: (a) => defineExpireRecordsJob(a, services.lifecycle, logger), schedule: scheduleExpireRecords },
    { define: (a) => defineSealArtifactsJob(a, services.sealArtifacts, logger, config.sealing.workers) },
    { define: (a) => defineSealingSweepJob(a, new SealingSweep(orm, clock), logger), schedule: scheduleSealingSweep },
    ...(anchoring ? [{ define: (a: Agenda) => defineAnchoringJob(a, anchoring, logger), schedule: scheduleAnchoring }] : []),
  ];
  for (const job of jobs) job.define(agenda);
  services.outboxSubscribers.push(sealingJobsSubscriber(agenda));
  if (anchoring) services.outboxSubscribers.push(anchoringKickSubscriber(anchoring, logger));
  await agenda.start();
  for (const job of jobs) await job.schedule?.(agenda);
  return { agenda, stop: () => agenda.stop(), close: queue.close };
}
