import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { PostgresPubSub } from '../../src/graph/pubsub.js';
import { createTestDatabase } from '../support/database.js';
import { until } from '../support/subscriptions.js';

/** The LISTEN connection drops (restart, failover, a killed backend): one listener comes back, and only one. */
describe('PostgresPubSub reconnects', () => {
  let database: { url: string; drop: () => Promise<void> };
  let admin: pg.Client;
  let pool: pg.Pool;
  let pubSub: PostgresPubSub;
  const received: unknown[] = [];
  const logLines: string[] = [];
  const log = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString());
      callback();
    },
  });
  let stopFeed: () => Promise<unknown>;

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    pool.on('error', () => undefined);
    pubSub = new PostgresPubSub({ pool, url: database.url, logger: pino({ level: 'warn' }, log), policy: { initialBackoffMs: 50, maxBackoffMs: 400 } });
    await pubSub.start();
    const feed = pubSub.subscribe('events')[Symbol.asyncIterator]();
    stopFeed = async () => feed.return?.();
    void (async () => {
      for (let next = await feed.next(); !next.done; next = await feed.next()) received.push(next.value);
    })();
  });
  afterAll(async () => {
    await stopFeed();
    await pubSub.close();
    await pool.end();
    await admin.query(`alter database ${new URL(database.url).pathname.slice(1)} allow_connections true`);
    await admin.end();
    await database.drop();
  });

  const name = () => new URL(database.url).pathname.slice(1);

  async function listenerPids(): Promise<number[]> {
    const rows = await admin.query<{ pid: number }>(`select pid from pg_stat_activity where datname = $1 and query ilike 'LISTEN%'`, [name()]);
    return rows.rows.map((row) => row.pid);
  }

  async function deliversEachOnce(tag: string): Promise<void> {
    const start = received.length;
    for (let i = 0; i < 5; i += 1) pubSub.publish('events', { tag, i });
    await until(() => received.length >= start + 5, `five ${tag} events`, 8000);
    // A second listener would deliver a copy: give it the time to show up, then count.
    pubSub.publish('events', { tag, i: 'marker' });
    await until(() => received.some((e) => (e as { i: unknown }).i === 'marker' && (e as { tag: string }).tag === tag), 'the marker', 8000);
    expect(received.slice(start).filter((e) => (e as { tag: string }).tag === tag)).toHaveLength(6);
  }

  it("sends several messages of one transaction with its commit, in the order given", async () => {
    const start = received.length;
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(pubSub.notifySql([1, 2, 3, 4, 5].map((i) => ['events', { tag: 'batch', i }] as const))!);
      // Nothing goes out before the commit.
      await client.query('select pg_sleep(0.05)');
      expect(received.slice(start)).toEqual([]);
      await client.query('commit');
    } finally {
      client.release();
    }
    await until(() => received.length >= start + 5, 'five batch events', 8000);
    expect(received.slice(start)).toEqual([1, 2, 3, 4, 5].map((i) => ({ tag: 'batch', i })));
  });

  it('delivers each event exactly once after its LISTEN backend is terminated', async () => {
    expect(await listenerPids()).toHaveLength(1);
    await deliversEachOnce('before');

    const [first] = await listenerPids();
    await admin.query('select pg_terminate_backend($1)', [first]);
    let pids: number[] = [];
    for (const deadline = Date.now() + 8000; Date.now() < deadline; ) {
      pids = await listenerPids();
      if (pids.length > 0 && !pids.includes(first!)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pids).toHaveLength(1);
    await deliversEachOnce('after');
  });

  it('retries a failed reconnect until the database takes connections again', async () => {
    const [current] = await listenerPids();
    await admin.query(`alter database ${name()} allow_connections false`);
    await admin.query('select pg_terminate_backend($1)', [current]);
    // Reconnect attempts fail while the database refuses connections.
    const failedBefore = logLines.filter((line) => line.includes('pubsub reconnect failed')).length;
    await until(() => logLines.filter((line) => line.includes('pubsub reconnect failed')).length >= failedBefore + 2, 'two failed reconnects', 8000);
    expect(await listenerPids()).toHaveLength(0);
    await admin.query(`alter database ${name()} allow_connections true`);
    let pids: number[] = [];
    for (const deadline = Date.now() + 8000; Date.now() < deadline && pids.length === 0; ) {
      pids = await listenerPids();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pids).toHaveLength(1);
    await deliversEachOnce('recovered');
  });
});
