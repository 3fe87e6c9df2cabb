import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { MISSING_ARTIFACTS_SQL } from '../sealing/sealing-sweep.js';

/**
 * What "stuck" means, in one place: the warning check (stuck-work-warnings.ts), the `rss_stuck_work`
 * gauge and `npm run ops -- status` all read this module's query.
 *
 * - `seal_artifacts`: a seal still without its PDF or share card `sealArtifactsMinutes` after it was sealed;
 * - `anchoring`: a seal whose anchor is still `pending` or `retrying` `anchoringMinutes` after it was sealed
 *   (only where anchoring runs: without a chain every anchor stays pending, by design);
 * - `mail_queued`: mail still `pending` or `sending` `mailMinutes` after it was queued;
 * - `mail_failed`: mail that failed for good (at once: nothing retries it);
 * - `messenger_queued` and `messenger_failed`: the same for messenger messages (the mail threshold);
 * - `webhook_failed`: a webhook delivery that failed for good (its retries spent, or its endpoint disabled).
 */
export const STUCK_KINDS = ['seal_artifacts', 'anchoring', 'mail_queued', 'mail_failed', 'messenger_queued', 'messenger_failed', 'webhook_failed'] as const;
export type StuckKind = (typeof STUCK_KINDS)[number];

export type StuckWorkSettings = {
  sealArtifactsMinutes: number;
  anchoringMinutes: number;
  mailMinutes: number;
  /** Whether this deployment anchors (CHAIN_RPC_URL set): without it anchors are never stuck. */
  anchoring: boolean;
};

/** One stuck item: ids and times only, never an address, a URL, a secret or record text. */
export type StuckItem = {
  kind: StuckKind;
  /** The record (seal kinds), mail message, messenger message or webhook delivery. */
  itemId: string;
  /** The record's `agr_reference`, where there is one (mail has none). */
  reference: string | null;
  /** Since when it waits: the seal, the mail's queueing, the failure. */
  since: Date;
  attempts: number | null;
  nextAttemptAt: Date | null;
  /** The webhook endpoint of a failed delivery. */
  endpointId: string | null;
};

/** Rows of the query below, as PostgreSQL returns them. */
export type StuckRow = {
  kind: StuckKind;
  item_id: string;
  reference: string | null;
  since: Date | string;
  attempts: number | null;
  next_attempt_at: Date | string | null;
  endpoint_id: string | null;
};

/**
 * Every stuck item, as a `stuck` CTE (columns as `StuckRow`): its SQL and parameters for a statement
 * that goes on from it. Kinds of the same table read the same indexes the workers read.
 */
export function stuckCte(settings: StuckWorkSettings, now: Date): { sql: string; params: unknown[] } {
  const before = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
  const sql = `with stuck as (
      select 'seal_artifacts'::text as kind, s.record_id as item_id, r.reference, s.sealed_at as since,
             null::int as attempts, null::timestamptz as next_attempt_at, null::uuid as endpoint_id
        from record_seals s join records r on r.id = s.record_id
       where s.sealed_at <= ? and ${MISSING_ARTIFACTS_SQL}
      union all
      select 'anchoring', s.record_id, r.reference, s.sealed_at, s.anchor_retry_count, s.anchor_next_retry_at, null
        from record_seals s join records r on r.id = s.record_id
       where ?::boolean and s.anchor_status in ('pending', 'retrying') and s.sealed_at <= ?
      union all
      select 'mail_queued', m.id, null, m.created_at, m.attempts, m.next_attempt_at, null
        from mail_outbox m where m.status in ('pending', 'sending') and m.created_at <= ?
      union all
      select 'mail_failed', m.id, null, coalesce(m.failed_at, m.created_at), m.attempts, null, null
        from mail_outbox m where m.status = 'failed'
      union all
      select 'messenger_queued', m.id, r.reference, m.created_at, m.attempts, m.next_attempt_at, null
        from messenger_outbox m left join records r on r.id = m.record_id where m.status in ('pending', 'sending') and m.created_at <= ?
      union all
      select 'messenger_failed', m.id, r.reference, coalesce(m.failed_at, m.created_at), m.attempts, null, null
        from messenger_outbox m left join records r on r.id = m.record_id where m.status = 'failed'
      union all
      select 'webhook_failed', d.id, r.reference, coalesce(d.failed_at, d.created_at), d.attempts, null, d.endpoint_id
        from webhook_deliveries d left join records r on r.id = d.record_id where d.status = 'failed'
    )`;
  return { sql, params: [before(settings.sealArtifactsMinutes), settings.anchoring, before(settings.anchoringMinutes), before(settings.mailMinutes), before(settings.mailMinutes)] };
}

export function stuckItemOf(row: StuckRow): StuckItem {
  return {
    kind: row.kind,
    itemId: row.item_id,
    reference: row.reference,
    since: new Date(row.since),
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at === null ? null : new Date(row.next_attempt_at),
    endpointId: row.endpoint_id,
  };
}

/** Stuck work, read from the database: the same answer on every instance. */
export class StuckWork {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      settings: StuckWorkSettings;
    },
  ) {}

  /** What counts as stuck: the warning job's query reads it too. */
  get settings(): StuckWorkSettings {
    return this.deps.settings;
  }

  now(): Date {
    return this.deps.clock.now();
  }

  /** How many items of each kind are stuck now (every kind present, 0 when none). */
  async counts(): Promise<Record<StuckKind, number>> {
    const { sql, params } = stuckCte(this.deps.settings, this.deps.clock.now());
    const rows = await this.deps.orm.em.fork().execute<{ kind: StuckKind; n: number }[]>(`${sql} select kind, count(*)::int as n from stuck group by kind`, params);
    const counts = Object.fromEntries(STUCK_KINDS.map((kind) => [kind, 0])) as Record<StuckKind, number>;
    for (const row of rows) counts[row.kind] = row.n;
    return counts;
  }

  /** The stuck items, the longest waiting first, at most `limitPerKind` of each kind. */
  async items(limitPerKind = 100): Promise<StuckItem[]> {
    const { sql, params } = stuckCte(this.deps.settings, this.deps.clock.now());
    const rows = await this.deps.orm.em.fork().execute<StuckRow[]>(
      `${sql} select kind, item_id, reference, since, attempts, next_attempt_at, endpoint_id
         from (select *, row_number() over (partition by kind order by since, item_id) as n from stuck) x
        where n <= ? order by kind, since, item_id`,
      [...params, limitPerKind],
    );
    return rows.map(stuckItemOf);
  }
}
