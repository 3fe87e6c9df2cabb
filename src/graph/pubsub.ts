import { Repeater } from '@repeaterjs/repeater';
import pg from 'pg';
import type { PubSub } from 'type-graphql';
import type { Logger } from 'pino';
import { PUBSUB_CHANNEL as CHANNEL } from '../domain/shared/record-changes.js';

/** PostgreSQL caps a NOTIFY payload at 8000 bytes; events carry ids and states, never documents. */
const MAX_PAYLOAD = 7900;

/** A notification: `[topic, payload]`, or `[topic, id, payload]` for a per-id topic. */
export type Message = readonly [routingKey: string, ...args: unknown[]];

/** A notification's payload, and the outbox sequence number of the event it carries (null for a plain publish). */
type Listener = (payload: unknown, seq: string | null) => void;

/** A notification as a subscriber that resumes by cursor sees it. */
export type SequencedPayload = { payload: unknown; seq: string | null };

/**
 * Published locally (never over the database) when the LISTEN connection is back after a loss:
 * whatever was notified meanwhile is lost, so caches that drop entries on notifications drop all.
 */
export const LISTENER_RESUMED = 'PUBSUB_LISTENER_RESUMED';

export type ReconnectPolicy = { initialBackoffMs: number; maxBackoffMs: number };

const RECONNECT_POLICY: ReconnectPolicy = { initialBackoffMs: 250, maxBackoffMs: 30_000 };

/**
 * A PubSub that spans every instance on one database: publish is `pg_notify`, and each instance
 * holds one LISTEN connection that fans notifications out to its local subscribers. When that
 * connection drops, exactly one reconnect loop runs, with exponential backoff, until it is back;
 * the dead client is detached first, so an event is never delivered twice.
 */
export class PostgresPubSub implements PubSub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private listener: pg.Client | null = null;
  private reconnecting = false;
  private sending: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly deps: {
      pool: pg.Pool;
      url: string;
      logger: Logger;
      /** The LISTEN connection's reconnect backoff (default: from 250 ms, doubling up to 30 s). */
      policy?: ReconnectPolicy;
    },
  ) {}

  async start(): Promise<void> {
    this.listener = await this.listen();
  }

  /** Whether the LISTEN connection is up (false while it reconnects: notifications are being missed). */
  get listening(): boolean {
    return this.listener !== null;
  }

  private async listen(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.deps.url });
    // Errors and the end of the connection both mean "lost"; only the current client may trigger a reconnect.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (error) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw error;
    }
    client.on('notification', (message) => this.dispatch(message.payload));
    return client;
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (client !== this.listener) return;
    this.listener = null;
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.deps.logger.warn({ err: error ?? undefined }, 'pubsub listener connection lost; reconnecting');
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    const policy = this.deps.policy ?? RECONNECT_POLICY;
    let backoff = policy.initialBackoffMs;
    try {
      while (!this.closed && !this.listener) {
        await new Promise((resolve) => setTimeout(resolve, backoff));
        if (this.closed) return;
        try {
          const client = await this.listen();
          // Closed while connecting: this client must not keep the process alive.
          if (this.closed) {
            await client.end().catch(() => undefined);
            return;
          }
          this.listener = client;
          this.deps.logger.info('pubsub listener reconnected');
          for (const listener of this.listeners.get(LISTENER_RESUMED) ?? []) listener(null, null);
        } catch (error) {
          this.deps.logger.warn({ err: error, retryInMs: backoff }, 'pubsub reconnect failed');
          backoff = Math.min(backoff * 2, policy.maxBackoffMs);
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.sending;
    const client = this.listener;
    this.listener = null;
    await client?.end().catch(() => undefined);
  }

  /** `publish(topic, payload)`, or `publish(topic, id, payload)` for a per-id topic (as type-graphql's topicId). */
  publish(routingKey: string, ...args: unknown[]): void {
    const payload = this.encode(routingKey, args);
    if (payload === null) return;
    // One notification after the other: subscribers see this process's events in the order they happened.
    this.sending = this.sending
      .then(() => this.deps.pool.query('select pg_notify($1, $2)', [CHANNEL, payload]))
      .then(
        () => undefined,
        (error: unknown) => this.deps.logger.error({ err: error, routingKey }, 'pubsub publish failed'),
      );
  }

  /**
   * Notifications as SQL text of the simple protocol (literals escaped), for a transaction to send
   * with its commit in one round trip: they go out exactly when it commits, in the order given. Null
   * when there is nothing to send.
   */
  notifySql(messages: readonly Message[], seq?: string): string | null {
    const payloads = this.payloads(messages, seq);
    if (payloads.length === 0) return null;
    return payloads.map((payload) => `select pg_notify(${pg.escapeLiteral(CHANNEL)}, ${pg.escapeLiteral(payload)})`).join('; ');
  }

  /**
   * The notifications' payloads on the channel (`PUBSUB_CHANNEL`), in the order given; one too large is
   * dropped (logged). `seq`: the outbox sequence number of the event they carry. Each payload is a JSON
   * object that starts `{"topic":`, so SQL can put a `"seq"` member first (the journal does, for the
   * events it numbers in its own statement).
   */
  payloads(messages: readonly Message[], seq?: string): string[] {
    return messages.map(([routingKey, ...args]) => this.encode(routingKey, args, seq)).filter((payload) => payload !== null);
  }

  private encode(routingKey: string, args: unknown[], seq?: string): string | null {
    const [topic, body] = args.length >= 2 ? [`${routingKey}:${String(args[0])}`, args[1]] : [routingKey, args[0]];
    const payload = JSON.stringify({ topic, payload: body ?? null, ...(seq === undefined ? {} : { seq }) });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      this.deps.logger.error({ topic }, 'pubsub payload too large; event dropped');
      return null;
    }
    return payload;
  }

  /** How many subscribers this process holds now, over every topic (a subscription counts once it listens). */
  get subscriberCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  subscribe(routingKey: string, dynamicId?: unknown): AsyncIterable<unknown> {
    return this.listenTo(routingKey, dynamicId, (payload) => payload);
  }

  /** As `subscribe`, with each payload's outbox sequence number (what a subscription resumes from). */
  subscribeSequenced(routingKey: string, dynamicId?: unknown): AsyncIterable<SequencedPayload> {
    return this.listenTo(routingKey, dynamicId, (payload, seq) => ({ payload, seq }));
  }

  private listenTo<T>(routingKey: string, dynamicId: unknown, shape: (payload: unknown, seq: string | null) => T): AsyncIterable<T> {
    const id = typeof dynamicId === 'string' || typeof dynamicId === 'number' ? String(dynamicId) : JSON.stringify(dynamicId);
    const topic = dynamicId === undefined ? routingKey : `${routingKey}:${id}`;
    return new Repeater<T>(async (push, stop) => {
      const listener: Listener = (payload, seq) => void push(shape(payload, seq));
      const set = this.listeners.get(topic) ?? new Set<Listener>();
      set.add(listener);
      this.listeners.set(topic, set);
      await stop;
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(topic);
    });
  }

  private dispatch(raw: string | undefined): void {
    if (!raw) return;
    try {
      const { topic, payload, seq } = JSON.parse(raw) as { topic: string; payload: unknown; seq?: string };
      for (const listener of this.listeners.get(topic) ?? []) listener(payload, seq ?? null);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'pubsub ignored a malformed notification');
    }
  }
}
