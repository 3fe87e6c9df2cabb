import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { ArchiveRenewal } from '../domain/sealing/archive-renewal.js';
import { defineJob } from './queue.js';

const ARCHIVE_RENEWAL_JOB = 'sealing.renew-archive-timestamps';

/**
 * Every hour, on one instance at a time: B-LTA sealed PDFs whose newest timestamp's certificate
 * expires within ARCHIVE_RENEW_BEFORE_DAYS get a new archive timestamp (archive-renewal.ts); one that
 * gains nothing is put off for hours. Safe to run twice: a PDF renewed meanwhile is not renewed again.
 */
export function defineArchiveRenewalJob(agenda: Agenda, renewal: ArchiveRenewal, logger: Logger): void {
  defineJob(agenda, ARCHIVE_RENEWAL_JOB, async () => {
    const outcomes = await renewal.renewDue();
    const renewed = outcomes.filter((o) => o.renewed).length;
    const putOff = outcomes.filter((o) => o.nextAttemptAt).length;
    if (outcomes.length > 0) logger.info({ due: outcomes.length, renewed, putOff }, 'archive timestamps checked');
  });
}

export async function scheduleArchiveRenewal(agenda: Agenda): Promise<void> {
  await agenda.every('1 hour', ARCHIVE_RENEWAL_JOB);
}
