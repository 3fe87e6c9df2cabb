import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { BulkSendService } from '../domain/bulk-sends/bulk-send-service.js';
import { defineJob, tracedData } from './queue.js';

const BULK_SEND_JOB = 'bulk-send';
const BULK_SEND_SWEEP_JOB = 'bulk-send.sweep';

type BulkSendData = { bulkSendId: string; traceparent?: string };

/**
 * Makes a bulk send's records, one row per transaction (BulkSendService.process). One job per bulk
 * send; a worker that dies mid-run gives it up after the lock lifetime and another takes it over,
 * skipping the rows already made. Safe to run twice, even at once.
 */
export function defineBulkSendJob(agenda: Agenda, bulkSends: BulkSendService, logger: Logger): void {
  defineJob<BulkSendData>(agenda, BULK_SEND_JOB, async (job) => {
    const { bulkSendId } = job.attrs.data;
    logger.info({ bulkSendId }, 'bulk send job started');
    const done = await bulkSends.process(bulkSendId);
    logger.info({ bulkSendId, ...done }, 'bulk send rows processed');
  });
}

export function enqueueBulkSend(agenda: Agenda, bulkSendId: string): Promise<unknown> {
  return agenda.create<BulkSendData>(BULK_SEND_JOB, tracedData(agenda, { bulkSendId })).unique({ 'data.bulkSendId': bulkSendId }).save();
}

/** Every minute: bulk sends not completed get their job again (a lost job, a queue emptied); a running one is left to its worker. */
export function defineBulkSendSweepJob(agenda: Agenda, bulkSends: BulkSendService, logger: Logger): void {
  defineJob(agenda, BULK_SEND_SWEEP_JOB, async () => {
    const open = await bulkSends.resumeUnfinished();
    if (open > 0) logger.info({ bulkSends: open }, 'unfinished bulk sends: their jobs asked for again');
  });
}

export async function scheduleBulkSendSweep(agenda: Agenda): Promise<void> {
  await agenda.every('1 minute', BULK_SEND_SWEEP_JOB);
}
