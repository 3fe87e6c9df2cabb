import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { HousekeepingService } from '../domain/maintenance/housekeeping-service.js';
import { defineJob } from './queue.js';

const HOUSEKEEPING_JOB = 'maintenance.housekeeping';

/** Hourly sweep of spent codes, dead sessions and old rate-limit windows. Safe to run twice. */
export function defineHousekeepingJob(agenda: Agenda, housekeeping: HousekeepingService, logger: Logger): void {
  defineJob(agenda, HOUSEKEEPING_JOB, async () => {
    const swept = await housekeeping.sweep();
    logger.info({ swept }, 'housekeeping done');
  });
}

export async function scheduleHousekeeping(agenda: Agenda): Promise<void> {
  await agenda.every('1 hour', HOUSEKEEPING_JOB);
}
