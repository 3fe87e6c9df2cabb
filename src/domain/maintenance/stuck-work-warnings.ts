import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { stuckCte, stuckItemOf, type StuckItem, type StuckKind, type StuckRow, type StuckWork } from './stuck-work.js';

/** The wait before the first repeated warning about an item; each next one doubles, up to `MAX_REPEAT_HOURS`. */
const FIRST_REPEAT_HOURS = 1;
const MAX_REPEAT_HOURS = 24;
/** Items warned about per kind in one check; the rest are counted in one line and warned about in the next checks. */
export const WARNINGS_PER_KIND = 20;

/** The stable message of a stuck-work warning (its `event` field is `stuck_work`). */
const STUCK_WORK_MESSAGE = 'stuck work';

export type StuckWorkCheck = { stuck: Record<StuckKind, number>; warned: number; deferred: number };

/**
 * Warns in the log about stuck work (the periodic job calls `check`): once when an item crosses its
 * threshold, then after 1 h, 2 h, 4 h, … (doubling, at most a day apart) while it stays stuck, and at most
 * `WARNINGS_PER_KIND` items of a kind per check. The last warning about each item is kept in
 * `stuck_work_warnings`, so the rate holds whichever instance runs the check; an item no longer stuck
 * loses its row (stuck again later, it is warned about at once).
 */
export class StuckWorkWarnings {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      stuckWork: StuckWork;
      logger: Logger;
    },
  ) {}

  async check(): Promise<StuckWorkCheck> {
    const now = this.deps.stuckWork.now();
    const { sql, params } = stuckCte(this.deps.stuckWork.settings, now);
    const em = this.deps.orm.em.fork();
    // Due: never warned, or warned long enough ago for the next repeat (the wait doubles with each warning).
    const due = await em.execute<(StuckRow & { warnings: number; n: number; due_total: number })[]>(
      `${sql}, due as (
         select st.*, coalesce(w.warnings, 0) as warnings from stuck st
           left join stuck_work_warnings w on w.kind = st.kind and w.item_id = st.item_id
          where w.item_id is null
             or w.last_warned_at + least(make_interval(hours => ?), make_interval(hours => ?) * power(2, w.warnings - 1)) <= ?
       )
       select * from (
         select *, row_number() over (partition by kind order by since, item_id) as n, (count(*) over (partition by kind))::int as due_total from due
       ) x where n <= ? order by kind, since, item_id`,
      [...params, MAX_REPEAT_HOURS, FIRST_REPEAT_HOURS, now, WARNINGS_PER_KIND],
    );
    for (const row of due) this.warn(stuckItemOf(row), now, row.warnings);
    if (due.length > 0) {
      await em.execute(
        `insert into stuck_work_warnings (kind, item_id, first_warned_at, last_warned_at, warnings)
         select kind, item_id::uuid, ?::timestamptz, ?::timestamptz, 1 from jsonb_to_recordset(?::jsonb) as x(kind text, item_id text)
         on conflict (kind, item_id) do update set last_warned_at = excluded.last_warned_at, warnings = stuck_work_warnings.warnings + 1`,
        [now, now, JSON.stringify(due.map((row) => ({ kind: row.kind, item_id: row.item_id })))],
      );
    }
    // Rows of items no longer stuck go: a seal whose PDF came, mail sent, failed rows cleaned up.
    await em.execute(`${sql} delete from stuck_work_warnings w where not exists (select 1 from stuck st where st.kind = w.kind and st.item_id = w.item_id)`, params);

    const totals = await this.deps.stuckWork.counts();
    // `due_total` counts every due item of a kind, also those past this check's share.
    const dueByKind = new Map(due.map((row) => [row.kind, row.due_total]));
    const deferred = [...dueByKind.values()].reduce((sum, n) => sum + n, 0) - due.length;
    if (deferred > 0) {
      this.deps.logger.warn({ event: 'stuck_work_deferred', items: deferred, stuck: totals }, 'stuck work: more items than one check warns about; the rest follow in the next checks');
    }
    return { stuck: totals, warned: due.length, deferred };
  }

  /** One item, one line: kind, reference, how long, attempts; never an address, a URL or record text. */
  private warn(item: StuckItem, now: Date, warnedBefore: number): void {
    this.deps.logger.warn(
      {
        event: 'stuck_work',
        kind: item.kind,
        agr_reference: item.reference,
        ...(item.kind === 'mail_queued' || item.kind === 'mail_failed' ? { mail_id: item.itemId } : {}),
        ...(item.kind === 'messenger_queued' || item.kind === 'messenger_failed' ? { messenger_message_id: item.itemId } : {}),
        ...(item.kind === 'webhook_failed' ? { delivery_id: item.itemId, webhook_id: item.endpointId } : {}),
        since: item.since.toISOString(),
        waiting_seconds: Math.max(0, Math.round((now.getTime() - item.since.getTime()) / 1000)),
        attempts: item.attempts,
        next_attempt_at: item.nextAttemptAt?.toISOString() ?? null,
        warned_before: warnedBefore,
      },
      STUCK_WORK_MESSAGE,
    );
  }
}
