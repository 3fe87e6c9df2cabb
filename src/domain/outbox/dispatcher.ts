import type { Logger } from 'pino';
import { isConnectionLost } from '../shared/database-errors.js';
import type { PooledSqlConnection, SqlConnection, SqlPool } from '../shared/sql.js';
import type { DomainEvent } from '../shared/events.js';
import { noTracing, type Tracing } from '../shared/tracing.js';
import type { Instruments } from '../shared/instruments.js';

/** One consumer of domain events: the GraphQL PubSub, the job queue. */
export interface OutboxSubscriber {
  readonly name: string;
  /**
   * Delivers one event inside the dispatcher's transaction; `client` is that transaction's connection,
   * so a NOTIFY sent through it goes out exactly when the event is marked delivered. `atCommit`
   * takes SQL text of the simple protocol (no parameters; literals escaped) that the dispatcher sends
   * in the transaction with its commit, in one round trip (null: nothing). Must be idempotent: an
   * event whose delivery fails (or whose process dies mid-delivery) is delivered again. `eventId`:
   * the outbox row's id, the same at every delivery of that event.
   */
  deliver(event: DomainEvent, client: SqlConnection, atCommit: (sql: string | null) => void, eventId: string): Promise<void>;
  /**
   * When delivering `event` is only notifying, the NOTIFY payloads (on the PubSub's channel) that
   * deliver it, each a JSON object (the journal puts the event's outbox sequence number first in it,
   * as `"seq"`), [] when it asks nothing of this subscriber: the journal can then send them with the
   * commit of the change that writes the event (`EventJournal`), and the dispatcher has nothing to do.
   * Undefined, or no such method: only `deliver` can, after the commit.
   */
  notifications?(event: DomainEvent): readonly string[] | undefined;
  /**
   * When the subscriber has work for `event` only while something holds in the database: an SQL
   * condition (constant text, no parameters) that, true in the change's transaction, makes the
   * change's events wait for the dispatcher (`deliver`), and false lets notifying alone deliver them.
   * Asked only for events with `notifications` of [] from this subscriber.
   */
  dispatchedWhen?(event: DomainEvent): string | null;
}

type Row = { id: string; type: DomainEvent['type']; payload: DomainEvent['data']; attempts: number; traceparent: string | null; record_id: string | null };

const MAX_BACKOFF_SECONDS = 300;

/**
 * Delivers the outbox in order of writing, each record's events strictly so on any number of
 * instances. Several instances may run one each: a batch is claimed with `for update skip locked`,
 * delivered and marked in one transaction. An event is claimed only when no earlier event of its
 * record is still undelivered outside the batch: one another instance holds (its transaction not yet
 * committed) or one waiting after a failure. So a record's later events wait for its earlier ones,
 * wherever those are; other records' events go on.
 */
export class OutboxDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly deps: {
      pool: SqlPool;
      subscribers: readonly OutboxSubscriber[];
      logger: Logger;
      /** How often to look for events that no wake-up announced (other instances, crashed processes). */
      pollMs?: number;
      batchSize?: number;
      /** Each event's delivery runs in a span continuing the trace of the change that wrote it. */
      tracing?: Tracing;
      /** Deliveries counted by outcome once their transaction commits. */
      instruments?: Instruments;
    },
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Something committed: deliver now (coalesced with a delivery already running). */
  wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.draining = this.drain()
      .then(() => undefined)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'outbox delivery failed; retrying at the next poll'))
      .finally(() => {
        this.draining = null;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.timer = setTimeout(() => this.wake(), this.deps.pollMs ?? 1000);
          this.timer.unref();
        }
      });
  }

  /** Stops; a delivery under way gets a few seconds (what it leaves undelivered goes at the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.race([this.draining, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }

  /**
   * Delivers every deliverable event; resolves when none is left. Also usable on its own (tests, tools).
   * A batch that was not full was everything there was to claim: no empty claim (a transaction of
   * three statements) follows it. Events committed meanwhile wake the dispatcher again; those another
   * instance holds are its to deliver.
   */
  async drain(): Promise<number> {
    let claimed = 0;
    for (;;) {
      const count = await this.deliverBatch();
      claimed += count;
      if (count < this.batchSize) return claimed;
    }
  }

  private get batchSize(): number {
    return this.deps.batchSize ?? 100;
  }

  private async deliverBatch(): Promise<number> {
    const client = await this.deps.pool.connect();
    // A connection lost mid-delivery (database restart, terminated backend) fails this batch, not the process.
    let lost: Error | undefined;
    const onError = (error: Error) => {
      lost = error;
      this.deps.logger.warn({ err: error }, 'outbox connection lost during delivery');
    };
    client.on('error', onError);
    try {
      // Usually every event of the batch is delivered in one transaction with no savepoints. When a
      // subscriber fails, that is rolled back and the batch is delivered again one event at a time,
      // each in a savepoint, so that only the failing event waits (subscribers are idempotent).
      try {
        return await this.claimAndDeliver(client, false);
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        // A connection that is gone fails the batch here, even before the client has reported its loss.
        if (isConnectionLost(error)) lost ??= error as Error;
        if (lost) throw error;
        // The one-by-one pass logs each event that fails again (a failure that does not repeat shows only here).
        this.deps.logger.info({ err: error }, 'outbox batch failed; delivering it again one event at a time');
      }
      return await this.claimAndDeliver(client, true);
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onError);
      client.release(lost);
    }
  }

  /**
   * Claims a batch (`for update skip locked`), delivers it and marks it delivered, in one transaction
   * (the oldest first, and each record's events in the order they were written).
   * `oneByOne`: each event in a savepoint; one that fails is put back with backoff and the rest go on.
   * Otherwise any failure is thrown (the caller rolls back).
   */
  private async claimAndDeliver(client: PooledSqlConnection, oneByOne: boolean): Promise<number> {
    // The oldest free events; of those, each whose record has no earlier undelivered event outside them.
    const claim = `with candidates as (
          select id, record_id from outbox_events
           where delivered_at is null and (next_attempt_at is null or next_attempt_at <= now())
           order by id limit ${Math.trunc(this.batchSize)} for update skip locked)
        select c.id from candidates c
         where c.record_id is null or not exists (
           select 1 from outbox_events e where e.record_id = c.record_id and e.id < c.id and e.delivered_at is null
              and e.id not in (select id from candidates))`;
    let rows: Row[];
    if (oneByOne) {
      await client.query('begin');
      rows = (await client.query<Row>(`select id, type, payload, attempts, traceparent, record_id from outbox_events where id in (${claim}) order by id`)).rows;
    } else {
      // Usually: begun, claimed and marked delivered in one round trip; a failed delivery rolls the mark back.
      const [, marked] = (await client.query(
        `begin; update outbox_events set delivered_at = now() where id in (${claim}) returning id, type, payload, attempts, traceparent, record_id`,
      )) as unknown as [{ rows: unknown[] }, { rows: Row[] }];
      rows = marked.rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    }
    const delivered: string[] = [];
    let retried = 0;
    // What subscribers send with the commit: the whole batch's, or (one by one) each event's in its savepoint.
    const atCommit: string[] = [];
    // One by one: after an event of a record fails, that record's later events in the batch wait for it.
    const waiting = new Set<string>();
    for (const row of rows) {
      if (row.record_id !== null && waiting.has(row.record_id)) continue;
      const event = { type: row.type, data: row.payload } as DomainEvent;
      const tracing = this.deps.tracing ?? noTracing;
      const deliver = () =>
        tracing.continueTrace(row.traceparent, 'outbox deliver', { 'outbox.event.type': row.type, 'outbox.event.attempt': row.attempts + 1 }, async () => {
          for (const subscriber of this.deps.subscribers) await subscriber.deliver(event, client, (sql) => void (sql && atCommit.push(sql)), row.id);
        });
      if (!oneByOne) {
        await deliver();
        delivered.push(row.id);
        continue;
      }
      await client.query('savepoint outbox_event');
      try {
        await deliver();
        if (atCommit.length > 0) await client.query(atCommit.splice(0).join('; '));
        await client.query('release savepoint outbox_event');
        delivered.push(row.id);
      } catch (error) {
        atCommit.length = 0;
        await client.query('rollback to savepoint outbox_event');
        const backoff = Math.min(MAX_BACKOFF_SECONDS, 2 ** row.attempts);
        await client.query(`update outbox_events set attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $2) where id = $1`, [row.id, backoff]);
        retried += 1;
        if (row.record_id !== null) waiting.add(row.record_id);
        this.deps.logger.warn({ err: error, eventId: row.id, type: row.type, attempts: row.attempts + 1 }, 'outbox event not delivered; will retry');
      }
    }
    if (oneByOne && delivered.length > 0) await client.query('update outbox_events set delivered_at = now() where id = any($1::bigint[])', [delivered]);
    // Usually the subscribers' notifications and the commit in one round trip (a failing statement skips the commit).
    await client.query([...atCommit, 'commit'].join('; '));
    if (delivered.length > 0) this.deps.instruments?.outboxDeliveries('delivered', delivered.length);
    if (retried > 0) this.deps.instruments?.outboxDeliveries('retry', retried);
    return rows.length;
  }
}
