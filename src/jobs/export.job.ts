import { backoffStrategies, type Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { ExportService } from '../domain/exports/export-service.js';
import { defineJob, tracedData } from './queue.js';

const EXPORT_JOB = 'exports.prepare';
const EXPORT_SWEEP_JOB = 'exports.sweep';

type ExportJobData = { exportId: string; traceparent?: string };

/**
 * Prepares a bulk export (domain/exports): makes sure each record's sealed PDF exists, publishing
 * progress, then marks it ready. One job per export (unique); one that dies half-way resumes after the
 * records already prepared, on whichever instance takes it over.
 */
export function defineExportJob(agenda: Agenda, exports: ExportService, logger: Logger): void {
  defineJob<ExportJobData>(
    agenda,
    EXPORT_JOB,
    async (job) => {
      await exports.prepare(job.attrs.data.exportId);
      logger.info({ exportId: job.attrs.data.exportId }, 'export prepared');
    },
    { concurrency: 2, backoff: backoffStrategies.exponential({ delay: 2000, maxRetries: 5 }) },
  );
}

export function enqueueExport(agenda: Agenda, exportId: string): Promise<unknown> {
  return agenda.create<ExportJobData>(EXPORT_JOB, tracedData(agenda, { exportId })).unique({ 'data.exportId': exportId }).save();
}

/**
 * Every minute: exports still queued or running get their job again (unique per export, so a running
 * one is not doubled). An export asked for on an instance whose jobs are off (JOBS_ENABLED=false) is
 * prepared by an instance whose are, and one whose job was lost is resumed.
 */
export function defineExportSweepJob(agenda: Agenda, exports: ExportService): void {
  defineJob(agenda, EXPORT_SWEEP_JOB, async () => {
    for (const exportId of await exports.unfinished()) await enqueueExport(agenda, exportId);
  });
}

export async function scheduleExportSweep(agenda: Agenda): Promise<void> {
  await agenda.every('1 minute', EXPORT_SWEEP_JOB);
}
