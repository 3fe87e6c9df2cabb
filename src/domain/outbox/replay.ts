import type { MikroORM } from '@mikro-orm/postgresql';
import type { DomainEvent } from '../shared/events.js';

/** How far back (in sequence numbers) an overlap looks at most, so that it reads a bounded range. */
const OVERLAP_SCAN = 10_000;

type Query = { afterSeq: string; recordId: string | null; types: readonly DomainEvent['type'][]; limit: number; overlapSeconds: number };

/**
 * Delivered outbox events after `afterSeq`, oldest first, at most `limit`: of one record or of all,
 * of the given types. With `overlapSeconds`, also those written up to that long before `afterSeq`'s
 * (events of different records can commit out of the order they were written in). Null when
 * `afterSeq`'s event is no longer kept (housekeeping deletes delivered events after a week): what
 * came after it cannot be told.
 */
export function missedOutboxEvents(orm: MikroORM) {
  return async ({ afterSeq, recordId, types, limit, overlapSeconds }: Query): Promise<{ seq: string; event: DomainEvent }[] | null> => {
    const em = orm.em.fork();
    const [cursor] = await em.execute<{ created_at: Date | string }[]>('select created_at from outbox_events where id = ?', [afterSeq]);
    if (!cursor) return null;
    const rows = await em.execute<{ seq: string; type: DomainEvent['type']; payload: DomainEvent['data'] }[]>(
      `select e.id::text as seq, e.type, e.payload from outbox_events e
        where e.delivered_at is not null and e.type in (?) and (?::uuid is null or e.record_id = ?::uuid)
          and (e.id > ? or (?::int > 0 and e.id < ? and e.id >= ? and e.created_at >= ?))
        order by e.id limit ?`,
      [types, recordId, recordId, afterSeq, overlapSeconds, afterSeq, (BigInt(afterSeq) - BigInt(OVERLAP_SCAN)).toString(), new Date(new Date(cursor.created_at).getTime() - overlapSeconds * 1000), limit],
    );
    return rows.map((row) => ({ seq: row.seq, event: { type: row.type, data: row.payload } as DomainEvent }));
  };
}
