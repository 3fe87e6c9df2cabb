import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { SealCompletion } from '../domain/sealing/seal-completion.js';
import { defineJob } from './queue.js';

const SEAL_COMPLETION_JOB = 'sealing.complete-degraded-seals';

/**
 * On one instance at a time, as often as the first retry wait (at most every minute): degraded seals
 * whose next attempt is due are asked of their authorities again (seal-completion.ts). Safe to run
 * twice: a PDF completed meanwhile is not completed again.
 */
export function defineSealCompletionJob(agenda: Agenda, completion: SealCompletion, logger: Logger): void {
  defineJob(agenda, SEAL_COMPLETION_JOB, async () => {
    const outcomes = await completion.completeDue();
    if (outcomes.length > 0) {
      const count = (outcome: string) => outcomes.filter((o) => o.outcome === outcome).length;
      logger.info({ due: outcomes.length, completed: count('completed'), improved: count('improved'), failed: count('failed') }, 'degraded seals tried');
    }
  });
}

export function scheduleSealCompletion(firstRetrySeconds: number): (agenda: Agenda) => Promise<unknown> {
  return (agenda) => agenda.every(`${Math.min(60, Math.max(1, firstRetrySeconds))} seconds`, SEAL_COMPLETION_JOB);
}
