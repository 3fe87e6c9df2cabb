import type { MikroORM } from '@mikro-orm/postgresql';
import { MISSING_ARTIFACTS_SQL } from '../sealing/sealing-sweep.js';
import type { AnchorStatus } from '../sealing/seal.js';
import type { SealGap } from '../sealing/entities.js';
import { stuckCte, type StuckKind, type StuckWork } from './stuck-work.js';

/**
 * The work waiting in the database, as an operator reads it (`npm run ops -- status`): references,
 * times, attempts and counts; never an address, an endpoint URL or record text.
 */
export type Backlog = {
  at: Date;
  /** The thresholds `stuck` was measured against, in minutes. */
  thresholds: { sealArtifactsMinutes: number; anchoringMinutes: number; mailMinutes: number; anchoring: boolean };
  stuck: Record<StuckKind, number>;
  sealsWaitingArtifacts: { total: number; items: { reference: string; sealedAt: Date; missing: ('sealed_pdf' | 'share_card')[]; stuck: boolean }[] };
  /** Sealed PDFs made while their authorities were down, until the completion job makes them B-LTA. */
  degradedSeals: { total: number; items: { reference: string; level: string; missing: SealGap[]; attempts: number; nextAttemptAt: Date | null; sealedAt: Date }[] };
  anchoring: {
    pending: number;
    retrying: number;
    items: { reference: string; status: AnchorStatus; attempts: number; nextAttemptAt: Date | null; sealedAt: Date; inFlight: boolean; stuck: boolean }[];
  };
  mail: QueueFigures;
  /** Messenger invitations and reminders (messenger_outbox), counted as mail is. */
  messenger: QueueFigures;
  webhooks: { byStatus: Record<string, number>; newestFailureAt: Date | null; endpointsDisabled: number };
  outbox: { pending: number; oldestAt: Date | null };
};

/** A message outbox by status, with its newest failure and its oldest message still waiting. */
type QueueFigures = { byStatus: Record<string, number>; newestFailureAt: Date | null; oldestQueuedAt: Date | null };

const date = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

/** Reads the backlog: the longest-waiting `limit` seals and anchors listed, everything else counted. */
export async function readBacklog(orm: MikroORM, stuckWork: StuckWork, limit = 50): Promise<Backlog> {
  const em = orm.em.fork();
  const at = stuckWork.now();
  const { settings } = stuckWork;
  // Whether an item is stuck is the stuck-work query's answer, not a second rule here.
  const stuck = stuckCte(settings, at);
  const seals = await em.execute<{ reference: string; sealed_at: Date | string; pdf: boolean; card: boolean; stuck: boolean; total: number }[]>(
    `${stuck.sql} select r.reference, s.sealed_at, count(*) over ()::int as total,
            exists (select 1 from stuck st where st.kind = 'seal_artifacts' and st.item_id = s.record_id) as stuck,
            r.type = 'notarization' or exists (select 1 from sealed_artifacts a where a.record_id = s.record_id and a.kind = 'sealed_pdf') as pdf,
            exists (select 1 from sealed_artifacts a where a.record_id = s.record_id and a.kind = 'share_card') as card
       from record_seals s join records r on r.id = s.record_id
      where ${MISSING_ARTIFACTS_SQL}
      order by s.sealed_at, r.reference limit ?`,
    [...stuck.params, limit],
  );
  const degraded = await em.execute<{ reference: string; level: string | null; seal_missing: SealGap[]; seal_completion_attempts: number; seal_completion_next_at: Date | string | null; sealed_at: Date | string; total: number }[]>(
    `select r.reference, a.level, a.seal_missing, a.seal_completion_attempts, a.seal_completion_next_at, s.sealed_at, count(*) over ()::int as total
       from sealed_artifacts a join records r on r.id = a.record_id join record_seals s on s.record_id = a.record_id
      where a.kind = 'sealed_pdf' and a.seal_missing is not null
      order by s.sealed_at, r.reference limit ?`,
    [limit],
  );
  const anchors = await em.execute<
    { reference: string; anchor_status: AnchorStatus; anchor_retry_count: number; anchor_next_retry_at: Date | string | null; sealed_at: Date | string; in_flight: boolean; stuck: boolean }[]
  >(
    `${stuck.sql} select r.reference, s.anchor_status, s.anchor_retry_count, s.anchor_next_retry_at, s.sealed_at, s.anchor_batch_id is not null as in_flight,
            exists (select 1 from stuck st where st.kind = 'anchoring' and st.item_id = s.record_id) as stuck
       from record_seals s join records r on r.id = s.record_id
      where s.anchor_status in ('pending', 'retrying')
      order by s.sealed_at, r.reference limit ?`,
    [...stuck.params, limit],
  );
  const [figures] = await em.execute<
    {
      anchors: Record<string, number>;
      mail: Record<string, number>;
      mail_failed_newest: Date | string | null;
      mail_queued_oldest: Date | string | null;
      messenger: Record<string, number>;
      messenger_failed_newest: Date | string | null;
      messenger_queued_oldest: Date | string | null;
      webhooks: Record<string, number>;
      webhooks_failed_newest: Date | string | null;
      webhooks_disabled: number;
      outbox_pending: number;
      outbox_oldest: Date | string | null;
    }[]
  >(
    `select
       (select coalesce(json_object_agg(anchor_status, n), '{}') from (select anchor_status, count(*)::int as n from record_seals where anchor_status <> 'confirmed' group by anchor_status) x) as anchors,
       (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from mail_outbox group by status) x) as mail,
       (select max(coalesce(failed_at, created_at)) from mail_outbox where status = 'failed') as mail_failed_newest,
       (select min(created_at) from mail_outbox where status in ('pending', 'sending')) as mail_queued_oldest,
       (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from messenger_outbox group by status) x) as messenger,
       (select max(coalesce(failed_at, created_at)) from messenger_outbox where status = 'failed') as messenger_failed_newest,
       (select min(created_at) from messenger_outbox where status in ('pending', 'sending')) as messenger_queued_oldest,
       (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from webhook_deliveries group by status) x) as webhooks,
       (select max(coalesce(failed_at, created_at)) from webhook_deliveries where status = 'failed') as webhooks_failed_newest,
       (select count(*)::int from webhook_endpoints where not enabled) as webhooks_disabled,
       (select count(*)::int from outbox_events where delivered_at is null) as outbox_pending,
       (select min(created_at) from outbox_events where delivered_at is null) as outbox_oldest`,
  );
  if (!figures) throw new Error('the backlog query returned no row');
  return {
    at,
    thresholds: { ...settings },
    stuck: await stuckWork.counts(),
    sealsWaitingArtifacts: {
      total: seals[0]?.total ?? 0,
      items: seals.map((row) => ({
        reference: row.reference,
        sealedAt: new Date(row.sealed_at),
        missing: [...(row.pdf ? [] : ['sealed_pdf' as const]), ...(row.card ? [] : ['share_card' as const])],
        stuck: row.stuck,
      })),
    },
    degradedSeals: {
      total: degraded[0]?.total ?? 0,
      items: degraded.map((row) => ({
        reference: row.reference,
        level: row.level ?? 'B-B',
        missing: row.seal_missing,
        attempts: row.seal_completion_attempts,
        nextAttemptAt: date(row.seal_completion_next_at),
        sealedAt: new Date(row.sealed_at),
      })),
    },
    anchoring: {
      pending: figures.anchors.pending ?? 0,
      retrying: figures.anchors.retrying ?? 0,
      items: anchors.map((row) => ({
        reference: row.reference,
        status: row.anchor_status,
        attempts: row.anchor_retry_count,
        nextAttemptAt: date(row.anchor_next_retry_at),
        sealedAt: new Date(row.sealed_at),
        inFlight: row.in_flight,
        stuck: row.stuck,
      })),
    },
    mail: { byStatus: figures.mail, newestFailureAt: date(figures.mail_failed_newest), oldestQueuedAt: date(figures.mail_queued_oldest) },
    messenger: { byStatus: figures.messenger, newestFailureAt: date(figures.messenger_failed_newest), oldestQueuedAt: date(figures.messenger_queued_oldest) },
    webhooks: { byStatus: figures.webhooks, newestFailureAt: date(figures.webhooks_failed_newest), endpointsDisabled: figures.webhooks_disabled },
    outbox: { pending: figures.outbox_pending, oldestAt: date(figures.outbox_oldest) },
  };
}
