import type { MikroORM } from '@mikro-orm/postgresql';
import { recordKeyOf } from '../records/record-access.js';
import { MISSING_ARTIFACTS_SQL } from '../sealing/sealing-sweep.js';
import type { AnchorStatus } from '../sealing/seal.js';
import type { Clock } from '../shared/clock.js';

/** What a record's sealing work still lacks: what `npm run ops -- retry` can start again. */
export type RetryPlan =
  | { found: false }
  | { found: true; recordId: string; reference: string; status: string; sealed: false }
  | {
      found: true;
      recordId: string;
      reference: string;
      status: string;
      sealed: true;
      /** Its PDF or share card is missing (the artifacts job makes both, keeping what exists). */
      artifactsMissing: boolean;
      anchor: { status: AnchorStatus; attempts: number; nextAttemptAt: Date | null; inFlight: boolean };
    };

/** Reads what a record's sealing work lacks, and makes its anchoring due now. */
export class WorkRetry {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
  ) {}

  /** By `agr_reference` (or record id); `{ found: false }` for anything else. */
  async plan(referenceOrId: string): Promise<RetryPlan> {
    const key = recordKeyOf(referenceOrId);
    if (!key) return { found: false };
    const [where, value] = 'id' in key ? ['r.id = ?', key.id] : ['r.reference = ?', key.reference];
    const [row] = await this.orm.em.fork().execute<
      { id: string; reference: string; status: string; sealed: boolean; missing: boolean | null; anchor_status: AnchorStatus | null; attempts: number | null; next_at: Date | string | null; in_flight: boolean | null }[]
    >(
      `select r.id, r.reference, r.status::text as status, s.record_id is not null as sealed,
              case when s.record_id is null then null else ${MISSING_ARTIFACTS_SQL} end as missing,
              s.anchor_status, s.anchor_retry_count as attempts, s.anchor_next_retry_at as next_at, s.anchor_batch_id is not null as in_flight
         from records r left join record_seals s on s.record_id = r.id
        where ${where}`,
      [value],
    );
    if (!row) return { found: false };
    const base = { found: true as const, recordId: row.id, reference: row.reference, status: row.status };
    if (!row.sealed || row.anchor_status === null) return { ...base, sealed: false };
    return {
      ...base,
      sealed: true,
      artifactsMissing: row.missing === true,
      anchor: { status: row.anchor_status, attempts: row.attempts ?? 0, nextAttemptAt: row.next_at === null ? null : new Date(row.next_at), inFlight: row.in_flight === true },
    };
  }

  /**
   * Makes a waiting or retrying seal due for the next anchoring pass now, skipping the rest of its retry
   * wait (the pass takes seals whose `anchor_next_retry_at` has come). False when there is nothing to make
   * due: anchored already, or in a batch whose stored transaction every pass sends again.
   */
  async anchorNow(recordId: string): Promise<boolean> {
    const rows = await this.orm.em.fork().execute<{ record_id: string }[]>(
      `update record_seals set anchor_next_retry_at = ?
        where record_id = ? and anchor_status <> 'confirmed' and anchor_batch_id is null
        returning record_id`,
      [this.clock.now(), recordId],
    );
    return rows.length > 0;
  }
}
