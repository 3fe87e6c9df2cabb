import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { Mailer } from '../mail/mailer.js';
import { DomainError } from '../shared/errors.js';
import { PollingLoop } from '../shared/polling-loop.js';
import { postOnce, type PostOutcome, type PostTimeouts } from './post.js';
import { webhookSignature, type WebhookSecrets } from './signature.js';
import type { WebhookTargets } from './target.js';

export type WebhookSenderSettings = PostTimeouts & {
  /** Seconds to wait after each failed attempt; the last attempt is the schedule's length + 1. */
  retrySchedule: readonly number[];
  /** An endpoint whose every delivery failed for this long is disabled (its owner is told by mail). */
  disableAfterSeconds: number;
  /** Deliveries in flight per instance. */
  concurrency: number;
  /** Deliveries in flight to one endpoint, on all instances together. */
  endpointConcurrency: number;
  /** Deliveries in flight to one owner's endpoints, on all instances together. */
  ownerConcurrency: number;
  pollMs: number;
};

type Claimed = {
  id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  body: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
};

/**
 * Sends webhook deliveries: every instance runs one, woken by the fan-out's notification and by its
 * own poll. A delivery is claimed with a lease (`locked_until`: a sender that dies lets it go), one
 * at a time per endpoint and record, in the order written, so a receiver sees a record's events in
 * order. The pipeline stays full: a slot freed by one attempt is claimed again at once, whatever the
 * others are still waiting for; and one endpoint, and one owner's endpoints, hold at most
 * `endpointConcurrency` and `ownerConcurrency` deliveries in flight on all instances together, so a
 * receiver that hangs slows only its own owner. Failed attempts wait on the retry schedule (with
 * jitter) and end `failed` after the last one; a 410 disables the endpoint at once, and so does
 * failing everything for `disableAfterSeconds`. Nothing here blocks anything else: mail, the outbox
 * and requests never wait for a receiver.
 */
export class WebhookSender {
  private readonly loop: PollingLoop;
  /** Attempts under way on this instance (each frees its slot, and asks for a claim, when it ends). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      orm: MikroORM;
      webhookTargets: WebhookTargets;
      webhookSecrets: WebhookSecrets;
      mailer: Mailer;
      clock: Clock;
      logger: Logger;
      settings: WebhookSenderSettings;
    },
  ) {
    this.loop = new PollingLoop(() => this.fill(), deps.settings.pollMs, (error) => this.deps.logger.error({ err: error }, 'webhook pass failed; retrying at the next poll'));
  }

  get maxAttempts(): number {
    return this.deps.settings.retrySchedule.length + 1;
  }

  start(): void {
    this.loop.start();
  }

  /** Stops claiming; attempts under way get a few seconds (a delivery left leased is retried when its lease ends). */
  async close(): Promise<void> {
    await this.loop.stop();
    await Promise.race([Promise.all(this.inFlight), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }

  /** Deliveries were written (here or on another instance): send now. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Claims due deliveries for the free slots and starts their attempts without waiting for them; each
   * attempt that ends wakes the loop to claim for its slot. Returns how many attempts it started.
   */
  private async fill(): Promise<number> {
    const free = this.deps.settings.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const claimed = await this.claim(free);
    for (const row of claimed) {
      const attempt: Promise<void> = this.attempt(row)
        .catch((error: unknown) => this.deps.logger.error({ err: error, deliveryId: row.id }, 'webhook attempt failed to record; its lease lets it go'))
        .finally(() => {
          this.inFlight.delete(attempt);
          this.loop.wake();
        });
      this.inFlight.add(attempt);
    }
    return claimed.length;
  }

  /** Sends everything due now and waits for those attempts (for tools and tests); returns how many attempts were made. */
  async sendDue(): Promise<number> {
    let attempts = 0;
    for (;;) {
      const started = await this.fill();
      attempts += started;
      if (this.inFlight.size === 0) return attempts;
      await Promise.race(this.inFlight);
    }
  }

  /**
   * Leases due deliveries: the first pending one of each endpoint and record (a later one waits for
   * the earlier to be delivered or to fail for good), of enabled endpoints, oldest first, as long as
   * its endpoint and its owner have slots left (what is leased on any instance counts). Claims are
   * taken one at a time across instances (a transaction's advisory lock, then a statement that sees
   * every claim committed before it), so the bounds hold exactly. The lease outlasts the longest
   * attempt; the attempt is counted when it is claimed.
   */
  private async claim(limit: number): Promise<Claimed[]> {
    const leaseSeconds = Math.ceil((this.deps.settings.connectMs + this.deps.settings.totalMs) / 1000) + 15;
    // A transaction of the connection, not of an entity manager: it changes no entity, so the ORM's
    // commit hooks (which drop the read caches on every commit) must not hear of it at every poll.
    const connection = this.deps.orm.em.getConnection();
    return connection.transactional(async (trx) => {
      await connection.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', ['webhook_deliveries:claim'], 'all', trx);
      return connection.execute<Claimed[]>(
        `with leased as (
           select d.endpoint_id, w.identity_id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
            where d.status = 'pending' and d.locked_until >= now()),
         due as (
           select d.id, d.seq, d.endpoint_id, w.identity_id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
            where d.status = 'pending' and w.enabled and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
              and not exists (select 1 from webhook_deliveries e
                               where e.endpoint_id = d.endpoint_id and e.record_id is not distinct from d.record_id and e.status = 'pending' and e.seq < d.seq)),
         endpoint_slots as (
           select due.*, row_number() over (partition by due.endpoint_id order by due.seq) + (select count(*) from leased l where l.endpoint_id = due.endpoint_id) as slot
             from due),
         owner_slots as (
           select e.id, e.seq, row_number() over (partition by e.identity_id order by e.seq) + (select count(*) from leased l where l.identity_id = e.identity_id) as slot
             from endpoint_slots e where e.slot <= ?)
         update webhook_deliveries d
            set locked_until = now() + make_interval(secs => ?), attempts = d.attempts + 1, last_attempt_at = now()
           from webhook_endpoints w
          where w.id = d.endpoint_id and d.status = 'pending'
            and d.id in (select o.id from owner_slots o where o.slot <= ? order by o.seq limit ?)
         returning d.id, d.endpoint_id, d.event_id, d.type, d.body, d.attempts, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at`,
        [this.deps.settings.endpointConcurrency, leaseSeconds, this.deps.settings.ownerConcurrency, limit],
        'all',
        trx,
      );
    });
  }

  private async attempt(row: Claimed): Promise<void> {
    const outcome = await this.post(row);
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    if (ok) return this.delivered(row, outcome.status);
    const error = outcome.status === null ? outcome.error : `answered ${outcome.status}`;
    if (outcome.status === 410) return this.disable(row.endpoint_id, 'gone', row, outcome.status, error);
    await this.failed(row, outcome.status, error);
  }

  /** Signs and posts; a URL that no longer passes the target rules is an attempt that failed. */
  private async post(row: Claimed): Promise<PostOutcome> {
    try {
      const url = this.deps.webhookTargets.parse(row.url);
      const pinned = await this.deps.webhookTargets.resolve(url, AbortSignal.timeout(this.deps.settings.connectMs));
      const timestamp = Math.floor(this.deps.clock.now().getTime() / 1000);
      const secrets = [this.deps.webhookSecrets.open(row.endpoint_id, row.secret)];
      const previousUntil = row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at).getTime() : 0;
      if (row.previous_secret && previousUntil > this.deps.clock.now().getTime()) secrets.push(this.deps.webhookSecrets.open(row.endpoint_id, row.previous_secret));
      const headers = { 'webhook-id': row.event_id, 'webhook-timestamp': String(timestamp), 'webhook-signature': webhookSignature(secrets, row.event_id, timestamp, row.body) };
      return await postOnce(url, pinned, headers, row.body, this.deps.settings);
    } catch (error) {
      if (error instanceof DomainError) return { status: null, error: error.message };
      throw error;
    }
  }

  private async delivered(row: Claimed, status: number): Promise<void> {
    const em = this.deps.orm.em.fork();
    await em.execute(
      `update webhook_deliveries set status = 'delivered', delivered_at = now(), failed_at = null, last_status_code = ?, last_error = null, locked_until = null, next_attempt_at = null where id = ?`,
      [status, row.id],
    );
    await em.execute(`update webhook_endpoints set failing_since = null where id = ? and failing_since is not null`, [row.endpoint_id]);
  }

  /** Retries on the schedule, or fails for good after the last attempt; an endpoint failing too long is disabled. */
  private async failed(row: Claimed, status: number | null, error: string): Promise<void> {
    const em = this.deps.orm.em.fork();
    const last = row.attempts >= this.maxAttempts;
    const wait = last ? 0 : withJitter(this.deps.settings.retrySchedule[row.attempts - 1]!);
    await em.execute(
      `update webhook_deliveries
          set status = ?, failed_at = ?, next_attempt_at = ?, last_status_code = ?, last_error = ?, locked_until = null
        where id = ?`,
      [last ? 'failed' : 'pending', last ? this.deps.clock.now() : null, last ? null : new Date(this.deps.clock.now().getTime() + wait * 1000), status, error, row.id],
    );
    const [endpoint] = await em.execute<{ failing_since: Date | string }[]>(
      `update webhook_endpoints set failing_since = coalesce(failing_since, now()) where id = ? returning failing_since`,
      [row.endpoint_id],
    );
    const failingFor = endpoint ? (this.deps.clock.now().getTime() - new Date(endpoint.failing_since).getTime()) / 1000 : 0;
    this.deps.logger.warn({ webhookId: row.endpoint_id, deliveryId: row.id, eventType: row.type, attempts: row.attempts, status, reason: error, failed: last }, last ? 'webhook delivery failed for good' : 'webhook delivery failed; will retry');
    if (failingFor >= this.deps.settings.disableAfterSeconds) return this.disable(row.endpoint_id, 'failing', null, status, error);
  }

  /**
   * Disables an endpoint: its pending deliveries fail (nothing is retried for it), and its owner is
   * told by mail (in the same transaction: the mail outbox sends it).
   */
  private async disable(endpointId: string, reason: 'gone' | 'failing', row: Claimed | null, status: number | null, error: string): Promise<void> {
    await this.deps.orm.em.fork().transactional(async (em: EntityManager) => {
      if (row) {
        await em.execute(`update webhook_deliveries set last_status_code = ?, last_error = ? where id = ?`, [status, error, row.id]);
      }
      const [endpoint] = await em.execute<{ identity_id: string; url: string; description: string | null; created_at: Date }[]>(
        `update webhook_endpoints set enabled = false, disabled_reason = ?, disabled_at = now(), updated_at = now() where id = ? and enabled returning identity_id, url, description, created_at`,
        [reason, endpointId],
      );
      await em.execute(
        `update webhook_deliveries set status = 'failed', failed_at = now(), next_attempt_at = null, locked_until = null,
                last_error = coalesce(last_error || '; ', '') || 'endpoint disabled'
          where endpoint_id = ? and status = 'pending'`,
        [endpointId],
      );
      if (!endpoint) return;
      this.deps.logger.warn({ webhookId: endpointId, reason }, 'webhook endpoint disabled');
      const owners = await em.execute<{ value: string }[]>(`select value from contact_points where identity_id = ? and type = 'email' order by created_at`, [endpoint.identity_id]);
      const host = new URL(endpoint.url).host;
      const why = reason === 'gone' ? 'it answered 410 Gone' : `every delivery to it failed for ${inWords(this.deps.settings.disableAfterSeconds)}`;
      for (const owner of owners) {
        await this.deps.mailer.send(
          {
            to: owner.value,
            subject: 'A webhook endpoint was disabled',
            text: [
              `Your webhook endpoint ${endpoint.description ? `"${endpoint.description}" ` : ''}on ${host} (id ${endpointId}) was disabled because ${why}.`,
              `The last attempt: ${error}.`,
              'No event is sent to it any more. When the receiver works again, enable the endpoint (PATCH /api/v1/webhooks/{id} with {"enabled": true}, or on the API keys and webhooks page of the web UI) and redeliver what it missed.',
            ].join('\n\n'),
          },
          em,
        );
      }
    });
  }
}

/** A duration in the largest whole unit that fits (5 days, 36 hours, 90 seconds). */
function inWords(seconds: number): string {
  const units: [number, string][] = [[86_400, 'day'], [3600, 'hour'], [60, 'minute'], [1, 'second']];
  const [size, name] = units.find(([unit]) => seconds >= unit && seconds % unit === 0) ?? [1, 'second'];
  const count = Math.round(seconds / size);
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}

/** ±10%, so that a receiver that failed many deliveries at once is not retried all at the same instant. */
function withJitter(seconds: number): number {
  return seconds * (0.9 + Math.random() * 0.2);
}
