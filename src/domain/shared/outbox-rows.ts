import type { EntityManager } from '@mikro-orm/postgresql';

/** Rows claimed at a time. */
const CLAIM_BATCH = 10;

/** How long a claimed row is ours: past it, another instance takes it over (its sender died mid-send). */
const CLAIM_MS = 120_000;

/**
 * Claims the due rows of an outbox table (`status`, `next_attempt_at`, `locked_until` columns, as
 * mail_outbox and messenger_outbox have): pending rows whose time has come, and rows a dead sender
 * left `sending`. Several instances may claim at once (skip locked). `full`: the batch was full, so
 * more may be due.
 */
export async function claimDue<Row>(
  em: EntityManager,
  outbox: { table: 'mail_outbox' | 'messenger_outbox'; order: string; returning: string; now: Date },
): Promise<{ rows: Row[]; full: boolean }> {
  const { table, order, returning, now } = outbox;
  const rows = await em.execute<Row[]>(
    `update ${table} set status = 'sending', locked_until = ? where id in (
       select id from ${table}
        where (status = 'pending' and next_attempt_at <= ?) or (status = 'sending' and locked_until < ?)
        order by ${order} limit ${CLAIM_BATCH} for update skip locked)
     returning ${returning}`,
    [new Date(now.getTime() + CLAIM_MS), now, now],
  );
  return { rows, full: rows.length >= CLAIM_BATCH };
}

/** Seconds before attempt `attempts + 1`: 5 s, doubling, at most an hour. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(3600, 5 * 2 ** (attempts - 1));
}
