import type { Agenda, JobWithId } from 'agenda';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Clock } from '../domain/shared/clock.js';
import { noInstruments, type Instruments, type JobOutcome } from '../domain/shared/instruments.js';
import { SealingSweep } from '../domain/sealing/sealing-sweep.js';
import { anchoringKickSubscriber, defineAnchoringJob, scheduleAnchoring } from '../jobs/anchoring.job.js';
import { defineExpireRecordsJob, scheduleExpireRecords } from '../jobs/expire-records.job.js';
import { defineHousekeepingJob, scheduleHousekeeping } from '../jobs/housekeeping.job.js';
import { defineStuckWorkJob, scheduleStuckWork } from '../jobs/stuck-work.job.js';
import { defineArchiveRenewalJob, scheduleArchiveRenewal } from '../jobs/archive-renewal.job.js';
import { defineSealCompletionJob, scheduleSealCompletion } from '../jobs/seal-completion.job.js';
import { createQueue } from '../jobs/queue.js';
import { defineBulkSendJob, defineBulkSendSweepJob, enqueueBulkSend, scheduleBulkSendSweep } from '../jobs/bulk-send.job.js';
import { defineExportJob, defineExportSweepJob, enqueueExport, scheduleExportSweep } from '../jobs/export.job.js';
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
): Promise<{ agenda: Agenda | null; stop: (withinMs: number) => Promise<void>; close: () => Promise<void> }> {
  if (!config.jobsEnabled) return { agenda: null, stop: async () => undefined, close: async () => undefined };
  const { services, orm, clock, logger } = deps;
  const queue = await createQueue({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    mongodbUrl: config.mongodbUrl,
    logger,
    pubSub: deps.pubSub,
    lockLifetimeMs: config.jobLockSeconds * 1000,
    processEvery: deps.processEvery,
    tracing: services.tracing,
  });
  const { agenda } = queue;
  const anchoring = services.anchoring;
  const jobs: Job[] = [
    { define: (a) => defineHousekeepingJob(a, services.housekeeping, logger), schedule: scheduleHousekeeping },
    { define: (a) => defineExpireRecordsJob(a, services.lifecycle, logger), schedule: scheduleExpireRecords },
    { define: (a) => defineStuckWorkJob(a, services.stuckWorkWarnings, logger), schedule: scheduleStuckWork },
    { define: (a) => defineSealArtifactsJob(a, services.sealArtifacts, logger, config.sealing.workers) },
    { define: (a) => defineSealingSweepJob(a, new SealingSweep(orm, clock), logger), schedule: scheduleSealingSweep },
    { define: (a) => defineArchiveRenewalJob(a, services.archiveRenewal, logger), schedule: scheduleArchiveRenewal },
    { define: (a) => defineExportJob(a, services.exports, logger) },
    { define: (a) => defineExportSweepJob(a, services.exports), schedule: scheduleExportSweep },
    { define: (a) => defineSealCompletionJob(a, services.sealCompletion, logger), schedule: scheduleSealCompletion(config.sealing.completionRetrySeconds) },
    { define: (a) => defineBulkSendJob(a, services.bulkSends, logger) },
    { define: (a) => defineBulkSendSweepJob(a, services.bulkSends, logger), schedule: scheduleBulkSendSweep },
    ...(anchoring ? [{ define: (a: Agenda) => defineAnchoringJob(a, anchoring, logger), schedule: scheduleAnchoring }] : []),
  ];
  for (const job of jobs) job.define(agenda);
  // The jobs this process runs now: handed back at a stop if they do not finish in time.
  const running = new Map<string, JobWithId>();
  agenda.on('start', (job: JobWithId, remote?: false) => void (remote || running.set(String(job.attrs._id), job)));
  agenda.on('complete', (job: JobWithId, remote?: false) => void (remote || running.delete(String(job.attrs._id))));
  countJobs(agenda, services.instruments);
  services.outboxSubscribers.push(sealingJobsSubscriber(agenda));
  services.exports.onQueued((exportId) => enqueueExport(agenda, exportId));
  if (anchoring) services.outboxSubscribers.push(anchoringKickSubscriber(anchoring, logger, services.tracing));
  await agenda.start();
  // A bulk send accepted now asks this queue for its job (one accepted before the start: the sweep's).
  services.bulkSends.useQueue((bulkSendId) => enqueueBulkSend(agenda, bulkSendId));
  for (const job of jobs) await job.schedule?.(agenda);
  return { agenda, stop: (withinMs) => stopJobs(agenda, running, withinMs, logger), close: queue.close };
}

/** Every job this process runs, counted by name and outcome with its duration (`rss_job_duration_seconds`). */
function countJobs(agenda: Agenda, instruments: Instruments): void {
  if (instruments === noInstruments) return;
  const began = new Map<string, number>();
  agenda.on('start', (job: JobWithId, remote?: false) => void (remote || began.set(String(job.attrs._id), performance.now())));
  const finished = (job: JobWithId, outcome: JobOutcome) => {
    const id = String(job.attrs._id);
    const start = began.get(id);
    began.delete(id);
    instruments.jobFinished(job.attrs.name, outcome, start === undefined ? 0 : (performance.now() - start) / 1000);
  };
  agenda.on('success', (job: JobWithId, remote?: false) => void (remote || finished(job, 'ok')));
  agenda.on('fail', (_error: Error, job: JobWithId, remote?: false) => void (remote || finished(job, 'failed')));
}

/**
 * A clean stop of the queue: no new job is taken, the running ones get `withinMs` to finish, and those
 * still running then are unlocked, so that another instance takes them at its next poll instead of
 * after the lock's lifetime (every job is safe to run again: each checks what is already done).
 */
async function stopJobs(agenda: Agenda, running: Map<string, JobWithId>, withinMs: number, logger: Logger): Promise<void> {
  const result = await agenda.drain({ timeout: withinMs, closeConnection: false });
  const left = [...running.values()];
  if (!result.timedOut || left.length === 0) return;
  await agenda.db.unlockJobs(left.map((job) => job.attrs._id));
  logger.warn({ jobs: left.map((job) => job.attrs.name), withinMs }, 'jobs still running at the stop were handed back to the queue');
}
