import type { Backlog } from '../domain/maintenance/backlog.js';
import { STUCK_KINDS } from '../domain/maintenance/stuck-work.js';

/** `12 min`, `3 h 05 min`, `2 d 4 h`: how long something has waited. */
function duration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 1) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;
const counts = (byStatus: Record<string, number>, statuses: string[]) =>
  [...new Set([...statuses, ...Object.keys(byStatus)])].map((status) => `${status} ${byStatus[status] ?? 0}`).join(', ');

/** The backlog as text for a person. */
export function renderBacklog(b: Backlog): string {
  const ago = (date: Date) => duration(b.at.getTime() - date.getTime());
  const since = (date: Date | null) => (date ? `${date.toISOString()} (${ago(date)} ago)` : 'none');
  const t = b.thresholds;
  const lines = [
    `Backlog at ${b.at.toISOString()}; stuck: seals after ${t.sealArtifactsMinutes} min, anchors after ${t.anchoringMinutes} min${t.anchoring ? '' : ' (anchoring off here: CHAIN_RPC_URL unset)'}, queued mail after ${t.mailMinutes} min, failed mail and webhooks at once`,
    '',
    `Seals waiting for artifacts: ${b.sealsWaitingArtifacts.total}`,
    ...b.sealsWaitingArtifacts.items.map(
      (s) => `  ${s.reference}  sealed ${s.sealedAt.toISOString()} (${ago(s.sealedAt)} ago)  missing ${s.missing.join(', ')}${s.stuck ? '  STUCK' : ''}`,
    ),
    ...more(b.sealsWaitingArtifacts.total, b.sealsWaitingArtifacts.items.length),
    `Degraded seals (sealed while their authorities were down; completed by the job when they answer): ${b.degradedSeals.total}`,
    ...b.degradedSeals.items.map(
      (d) =>
        `  ${d.reference}  ${d.level}  missing ${d.missing.join(', ')}  attempts ${d.attempts}  next attempt ${d.nextAttemptAt && d.nextAttemptAt > b.at ? d.nextAttemptAt.toISOString() : 'now'}  sealed ${ago(d.sealedAt)} ago`,
    ),
    ...more(b.degradedSeals.total, b.degradedSeals.items.length),
    `Anchors pending or retrying: ${b.anchoring.pending} pending, ${b.anchoring.retrying} retrying`,
    ...b.anchoring.items.map(
      (a) =>
        `  ${a.reference}  ${a.status}  attempts ${a.attempts}  next attempt ${a.inFlight ? 'in flight (every pass sends the stored transaction)' : a.nextAttemptAt && a.nextAttemptAt > b.at ? a.nextAttemptAt.toISOString() : 'now'}  sealed ${ago(a.sealedAt)} ago${a.stuck ? '  STUCK' : ''}`,
    ),
    ...more(b.anchoring.pending + b.anchoring.retrying, b.anchoring.items.length),
    `Mail: ${counts(b.mail.byStatus, ['pending', 'sending', 'sent', 'failed', 'dropped'])}; newest failure ${since(b.mail.newestFailureAt)}; oldest queued ${since(b.mail.oldestQueuedAt)}`,
    `Messenger messages: ${counts(b.messenger.byStatus, ['pending', 'sending', 'sent', 'failed'])}; newest failure ${since(b.messenger.newestFailureAt)}; oldest queued ${since(b.messenger.oldestQueuedAt)}`,
    `Webhook deliveries: ${counts(b.webhooks.byStatus, ['pending', 'delivered', 'failed'])}; newest failure ${since(b.webhooks.newestFailureAt)}; endpoints disabled ${b.webhooks.endpointsDisabled}`,
    `Outbox: ${b.outbox.pending} events undelivered; oldest ${since(b.outbox.oldestAt)}`,
    '',
    `Stuck now: ${STUCK_KINDS.map((kind) => `${kind} ${b.stuck[kind]}`).join(', ')}`,
  ];
  return `${lines.join('\n')}\n`;
}

function more(total: number, shown: number): string[] {
  return total > shown ? [`  … and ${total - shown} more (--limit)`] : [];
}

/** The backlog for machines (`--json`): snake_case, ISO times, references as `agr_reference`. */
export function backlogJson(b: Backlog): unknown {
  return {
    at: b.at.toISOString(),
    thresholds: {
      seal_artifacts_minutes: b.thresholds.sealArtifactsMinutes,
      anchoring_minutes: b.thresholds.anchoringMinutes,
      mail_minutes: b.thresholds.mailMinutes,
      anchoring: b.thresholds.anchoring,
    },
    stuck: b.stuck,
    seals_waiting_artifacts: {
      total: b.sealsWaitingArtifacts.total,
      items: b.sealsWaitingArtifacts.items.map((s) => ({ agr_reference: s.reference, sealed_at: iso(s.sealedAt), missing: s.missing, stuck: s.stuck })),
    },
    degraded_seals: {
      total: b.degradedSeals.total,
      items: b.degradedSeals.items.map((d) => ({
        agr_reference: d.reference,
        level: d.level,
        missing: d.missing,
        attempts: d.attempts,
        next_attempt_at: iso(d.nextAttemptAt),
        sealed_at: iso(d.sealedAt),
      })),
    },
    anchoring: {
      pending: b.anchoring.pending,
      retrying: b.anchoring.retrying,
      items: b.anchoring.items.map((a) => ({
        agr_reference: a.reference,
        status: a.status,
        attempts: a.attempts,
        next_attempt_at: iso(a.nextAttemptAt),
        in_flight: a.inFlight,
        sealed_at: iso(a.sealedAt),
        stuck: a.stuck,
      })),
    },
    mail: { by_status: b.mail.byStatus, newest_failure_at: iso(b.mail.newestFailureAt), oldest_queued_at: iso(b.mail.oldestQueuedAt) },
    messenger: { by_status: b.messenger.byStatus, newest_failure_at: iso(b.messenger.newestFailureAt), oldest_queued_at: iso(b.messenger.oldestQueuedAt) },
    webhooks: { by_status: b.webhooks.byStatus, newest_failure_at: iso(b.webhooks.newestFailureAt), endpoints_disabled: b.webhooks.endpointsDisabled },
    outbox: { pending: b.outbox.pending, oldest_at: iso(b.outbox.oldestAt) },
  };
}
