import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { StuckWorkWarnings } from '../domain/maintenance/stuck-work-warnings.js';
import { defineJob } from './queue.js';

const STUCK_WORK_JOB = 'maintenance.stuck-work';

/**
 * Every minute, on one instance at a time: a warning in the log for each item of stuck work, when it
 * crosses its threshold and then ever more rarely (stuck-work-warnings.ts). Safe to run twice.
 */
export function defineStuckWorkJob(agenda: Agenda, warnings: StuckWorkWarnings, logger: Logger): void {
  defineJob(agenda, STUCK_WORK_JOB, async () => {
    const { warned, stuck } = await warnings.check();
    if (warned > 0) logger.debug({ warned, stuck }, 'stuck work checked');
  });
}

export async function scheduleStuckWork(agenda: Agenda): Promise<void> {
  await agenda.every('1 minute', STUCK_WORK_JOB);
}
