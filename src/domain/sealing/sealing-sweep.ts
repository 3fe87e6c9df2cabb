import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';

/**
 * A seal (`s`, of `record_seals`, its record `r`) still missing an artifact: the share card, or the sealed PDF of
 * any record but a notarization (which gets no PDF). The sweep below and the stuck-work check read the same rule.
 */
export const MISSING_ARTIFACTS_SQL = `(not exists (select 1 from sealed_artifacts a where a.record_id = s.record_id and a.kind = 'share_card')
               or (r.type <> 'notarization' and not exists (select 1 from sealed_artifacts a where a.record_id = s.record_id and a.kind = 'sealed_pdf')))`;

/** Finds seals whose artifacts are overdue, so no sealed record waits silently forever. */
export class SealingSweep {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    private readonly graceSeconds = 60,
  ) {}

  async recordsMissingArtifacts(limit = 500): Promise<string[]> {
    const before = new Date(this.clock.now().getTime() - this.graceSeconds * 1000);
    const rows = await this.orm.em.fork().execute<{ record_id: string }[]>(
      `select s.record_id from record_seals s join records r on r.id = s.record_id
        where s.sealed_at < ?
          and ${MISSING_ARTIFACTS_SQL}
        order by s.sealed_at limit ?`,
      [before, limit],
    );
    return rows.map((r) => r.record_id);
  }
}
