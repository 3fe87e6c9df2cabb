import { PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';

/** The columns every outbox row has that its writer need not set. */
export type OutboxRowDefaults = 'id' | 'status' | 'attempts' | 'nextAttemptAt' | 'lockedUntil' | 'lastError' | 'createdAt' | 'sentAt' | 'failedAt';

/** What an outbox row (mail_outbox, messenger_outbox) has besides its message: its delivery's state, which `claimDue` reads. */
export abstract class OutboxRow<Status extends string> {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text' })
  status: Status = 'pending' as Status;

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  nextAttemptAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedUntil: Date | null = null;

  /** Why the last attempt failed, in the transport's words (never the body). */
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  sentAt: Date | null = null;

  /** When its last attempt failed and it became `failed` (what an operator asks first: since when). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  failedAt: Date | null = null;
}

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
