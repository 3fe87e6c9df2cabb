import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { LifecycleService } from '../domain/records/lifecycle-service.js';
import { defineJob } from './queue.js';

export const EXPIRE_RECORDS_JOB = 'records.expire-lapsed';

/** Moves pending records past their lapse to `expired`. Idempotent: a second run finds nothing due. */
export function defineExpireRecordsJob(agenda: Agenda, lifecycle: LifecycleService, logger: Logger): void {
  defineJob(agenda, EXPIRE_RECORDS_JOB, async () => {
    const expired = await lifecycle.expireDue();
    if (expired > 0) logger.info({ expired }, 'lapsed records expired');
  });
}

export async function scheduleExpireRecords(agenda: Agenda): Promise<void> {
  await agenda.every('1 minute', EXPIRE_RECORDS_JOB);
}
