import { Repeater } from '@repeaterjs/repeater';
import pg from 'pg';
import type { PubSub } from 'type-graphql';
import type { Logger } from 'pino';

const CHANNEL = 'rss_graph_events';
/** PostgreSQL caps a NOTIFY payload at 8000 bytes; events carry ids and states, never documents. */
const MAX_PAYLOAD = 7900;

type Listener = (payload: unknown) => void;

/**
 * A PubSub that spans every instance on one database: publish is `pg_notify`, and each instance
 * holds one LISTEN connection that fans notifications out to its local subscribers. Reconnects
 * after a dropped connection.
 */
export class PostgresPubSub implements PubSub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private listener: pg.Client | null = null;
  private sending: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => this.dispatch(message.payload));
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'pubsub listener connection lost; reconnecting');
      this.listener = null;
      if (!this.closed) setTimeout(() => void this.start().catch((e: unknown) => this.logger.error({ err: e }, 'pubsub reconnect failed')), 1000);
    });
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    this.listener = client;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.sending;
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  /** `publish(topic, payload)`, or `publish(topic, id, payload)` for a per-id topic (as type-graphql's topicId). */
  publish(routingKey: string, ...args: unknown[]): void {
    const [topic, body] = args.length >= 2 ? [`${routingKey}:${String(args[0])}`, args[1]] : [routingKey, args[0]];
    const payload = JSON.stringify({ topic, payload: body ?? null });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      this.logger.error({ topic }, 'pubsub payload too large; event dropped');
      return;
    }
    // One notification after the other: subscribers see this process's events in the order they happened.
    this.sending = this.sending
      .then(() => this.pool.query('select pg_notify($1, $2)', [CHANNEL, payload]))
      .then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error, topic }, 'pubsub publish failed'),
      );
  }

  subscribe(routingKey: string, dynamicId?: unknown): AsyncIterable<unknown> {
    const id = typeof dynamicId === 'string' || typeof dynamicId === 'number' ? String(dynamicId) : JSON.stringify(dynamicId);
    const topic = dynamicId === undefined ? routingKey : `${routingKey}:${id}`;
    return new Repeater<unknown>(async (push, stop) => {
      const listener: Listener = (payload) => void push(payload);
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
      const { topic, payload } = JSON.parse(raw) as { topic: string; payload: unknown };
      for (const listener of this.listeners.get(topic) ?? []) listener(payload);
    } catch (error) {
      this.logger.warn({ err: error }, 'pubsub ignored a malformed notification');
    }
  }
}
