import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { OutboxDispatcher, type OutboxSubscriber } from '../../src/domain/outbox/dispatcher.js';
import { EventJournal } from '../../src/domain/outbox/journal.js';
import { openAuditTrail } from '../../src/domain/records/audit-trail.js';
import { lifecycle, type DomainEvent, type RecordLifecycleEvent } from '../../src/domain/shared/events.js';
import { PUBSUB_CHANNEL } from '../../src/domain/shared/record-changes.js';
import { liveSubscriber } from '../../src/graph/live.js';
import { PostgresPubSub } from '../../src/graph/pubsub.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';

const logger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

function moveOf(recordId: string, trigger = 'submit'): RecordLifecycleEvent {
  return { recordId, trigger, fromStatus: 'draft', toStatus: 'pending_confirmation', participantId: null, recordVersion: 1, at: new Date().toISOString() };
}

/** A subscriber that remembers what reached it, in order. */
function recorder(): OutboxSubscriber & { seen: DomainEvent[] } {
  const seen: DomainEvent[] = [];
  return { name: 'recorder', seen, deliver: async (event) => void seen.push(event) };
}

describe('Outbox: domain events written in the transaction, delivered after the commit', () => {
  let db: { url: string; drop: () => Promise<void> };
  let orm: MikroORM;
  let pool: pg.Pool;
  const journal = new EventJournal({ sealContext: { sealCertificateSha256: null, anchor: null, publicBaseUrl: 'http://127.0.0.1' } });

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ url: db.url, poolMax: 4 });
    await migrate(orm, db.url);
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // An idle pooled connection that dies must not become an unhandled 'error' event.
    pool.on('error', () => undefined);
  });
  afterAll(async () => {
    await pool.end();
    await orm.close();
    await db.drop();
  });
  beforeEach(async () => {
    await pool.query('delete from outbox_events');
  });

  /** A connection of its own that LISTENs on `channel` and keeps each payload it hears. */
  const listening = async (channel: string) => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query(`listen ${channel}`);
    return { listener, heard };
  };
  const commit = (events: DomainEvent[]) => orm.em.fork().transactional((em) => journal.write(em, events));

  it('never delivers an event whose transaction rolled back', async () => {
    const recordId = randomUUID();
    await expect(
      orm.em.fork().transactional(async (em) => {
        await journal.write(em, [lifecycle(moveOf(recordId))]);
        throw new Error('the change failed after writing its events');
      }),
    ).rejects.toThrow('the change failed');
    const sink = recorder();
    await new OutboxDispatcher({ pool, subscribers: [sink], logger }).drain();
    expect(sink.seen).toHaveLength(0);
    const { rows } = await pool.query('select count(*)::int as n from record_audit_entries where record_id = $1', [recordId]);
    expect(rows[0].n).toBe(0);
  });

  it('delivers a committed event once, even when no dispatcher ran at the commit (the process died right after it)', async () => {
    const recordId = randomUUID();
    await commit([lifecycle(moveOf(recordId))]);
    // Nothing was delivered yet: the "process" that committed is gone. A new instance starts.
    const first = recorder();
    await new OutboxDispatcher({ pool, subscribers: [first], logger }).drain();
    expect(first.seen.map((e) => e.data.recordId)).toEqual([recordId]);
    const second = recorder();
    await new OutboxDispatcher({ pool, subscribers: [second], logger }).drain();
    expect(second.seen).toHaveLength(0);
  });

  it('ends a drain on a batch that was not full, without another claim', async () => {
    // Drain anything earlier tests left, then count the batches (one pooled connection each).
    await new OutboxDispatcher({ pool, subscribers: [], logger }).drain();
    for (let i = 0; i < 5; i += 1) await commit([lifecycle(moveOf(randomUUID()))]);
    let batches = 0;
    const counting = { connect: () => ((batches += 1), pool.connect()) } as unknown as pg.Pool;
    const sink = recorder();
    await new OutboxDispatcher({ pool: counting, subscribers: [sink], logger, batchSize: 2 }).drain();
    expect(sink.seen).toHaveLength(5);
    // 2 + 2 + 1: the third batch was not full, so no fourth, empty claim.
    expect(batches).toBe(3);
  });

  it('delivers in the order written, and two dispatchers at once deliver each event exactly once', async () => {
    const ids = Array.from({ length: 40 }, () => randomUUID());
    for (const id of ids) await commit([lifecycle(moveOf(id))]);
    const a = recorder();
    const b = recorder();
    await Promise.all([new OutboxDispatcher({ pool, subscribers: [a], logger, batchSize: 5 }).drain(), new OutboxDispatcher({ pool, subscribers: [b], logger, batchSize: 5 }).drain()]);
    const all = [...a.seen, ...b.seen].map((e) => e.data.recordId);
    expect(all.sort()).toEqual([...ids].sort());
    // Each dispatcher saw its share in writing order.
    for (const seen of [a.seen, b.seen]) {
      const positions = seen.map((e) => (ids as string[]).indexOf(e.data.recordId));
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
    }
  });

  it("keeps a record's order across dispatchers: while one holds its first event, another delivers none of its later ones", async () => {
    const record = randomUUID();
    const other = randomUUID();
    await commit([lifecycle(moveOf(record, 'submit'))]);
    await commit([lifecycle(moveOf(record, 'confirm'))]);
    await commit([lifecycle(moveOf(other))]);
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const named = (event: DomainEvent) => (event.data.recordId === record ? (event.data as { trigger: string }).trigger : 'other');
    // Instance A takes the record's first event and is slow to deliver it (its transaction stays open).
    const slow: OutboxSubscriber = {
      name: 'slow',
      deliver: async (event) => {
        if (named(event) === 'submit') {
          holding();
          await released;
        }
        order.push(`A:${named(event)}`);
      },
    };
    const fast: OutboxSubscriber = { name: 'fast', deliver: async (event) => void order.push(`B:${named(event)}`) };
    const a = new OutboxDispatcher({ pool, subscribers: [slow], logger, batchSize: 1 }).drain();
    await held;
    try {
      // Instance B meanwhile: the other record's event goes; the record's second event waits for its first.
      await new OutboxDispatcher({ pool, subscribers: [fast], logger, batchSize: 10 }).drain();
      expect(order).toEqual(['B:other']);
    } finally {
      release();
      await a;
    }
    expect(order).toEqual(['B:other', 'A:submit', 'A:confirm']);
  });

  it("one by one, a record's later events in the batch wait behind its event that failed", async () => {
    const record = randomUUID();
    await commit([lifecycle(moveOf(record, 'submit'))]);
    await commit([lifecycle(moveOf(record, 'confirm'))]);
    // It fails in the batch and again when the batch is delivered one event at a time.
    let failures = 2;
    const seen: string[] = [];
    const flakyOnce: OutboxSubscriber = {
      name: 'flaky-once',
      deliver: async (event) => {
        const trigger = (event.data as { trigger: string }).trigger;
        if (trigger === 'submit' && failures > 0) {
          failures -= 1;
          throw new Error('subscriber down');
        }
        seen.push(trigger);
      },
    };
    const dispatcher = new OutboxDispatcher({ pool, subscribers: [flakyOnce], logger });
    await dispatcher.drain();
    expect(seen).toEqual([]);
    // After the backoff (1 s), the first event goes, then the second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await dispatcher.drain();
    expect(seen).toEqual(['submit', 'confirm']);
  });

  it('a subscriber that fails delays only its event, with backoff, and the rest go on', async () => {
    const bad = randomUUID();
    const good = randomUUID();
    await commit([lifecycle(moveOf(bad))]);
    await commit([lifecycle(moveOf(good))]);
    const seen: string[] = [];
    const flaky: OutboxSubscriber = {
      name: 'flaky',
      deliver: async (event) => {
        if (event.data.recordId === bad) throw new Error('subscriber down');
        seen.push(event.data.recordId);
      },
    };
    const lines: string[] = [];
    const recording = createLogger('info', new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) }));
    await new OutboxDispatcher({ pool, subscribers: [flaky], logger: recording }).drain();
    expect(seen).toEqual([good]);
    // The batch's failure is logged once, then the event that failed again on its own.
    expect(lines.filter((line) => line.includes('delivering it again one event at a time'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('subscriber down')).length).toBeGreaterThanOrEqual(2);
    const { rows } = await pool.query('select attempts, next_attempt_at > now() as later, delivered_at from outbox_events where record_id = $1', [bad]);
    expect(rows[0]).toMatchObject({ attempts: 1, later: true, delivered_at: null });
  });

  it('when an event fails after others in its batch, their notifications still go out exactly once', async () => {
    const good = randomUUID();
    const bad = randomUUID();
    await commit([lifecycle(moveOf(good))]);
    await commit([lifecycle(moveOf(bad))]);
    const { listener, heard } = await listening('outbox_test');
    try {
      // Delivers through the dispatcher's transaction, as the GraphQL PubSub does; fails on `bad`.
      const notifying: OutboxSubscriber = {
        name: 'notifying',
        deliver: async (event, client) => {
          if (event.data.recordId === bad) throw new Error('subscriber down');
          await client.query('select pg_notify($1, $2)', ['outbox_test', event.data.recordId]);
        },
      };
      await new OutboxDispatcher({ pool, subscribers: [notifying], logger }).drain();
      // A round trip on the listening connection: every notification committed before it has arrived.
      await listener.query('select 1');
      expect(heard).toEqual([good]);
      const { rows } = await pool.query('select record_id, delivered_at is not null as delivered, attempts from outbox_events order by id');
      expect(rows).toEqual([
        { record_id: good, delivered: true, attempts: 0 },
        { record_id: bad, delivered: false, attempts: 1 },
      ]);
    } finally {
      await listener.end();
    }
  });

  it("sends the subscribers' SQL with its commit: text intact, once, and never for an event put back", async () => {
    const good = randomUUID();
    const bad = randomUUID();
    await commit([lifecycle(moveOf(good))]);
    await commit([lifecycle(moveOf(bad))]);
    const { listener, heard } = await listening('outbox_test');
    // Quotes, a backslash, a semicolon and SQL of its own: literals, never statements.
    const hostile = (id: string) => `${id} it's \\ "quoted"; commit; drop table outbox_events; --`;
    const sqlOf = (id: string) => `select pg_notify('outbox_test', ${pg.escapeLiteral(hostile(id))})`;
    try {
      // First a batch that delivers everything: one notification each, sent with the commit.
      const staging: OutboxSubscriber = { name: 'staging', deliver: async (event, _client, atCommit) => atCommit(sqlOf(event.data.recordId)) };
      await new OutboxDispatcher({ pool, subscribers: [staging], logger }).drain();
      await listener.query('select 1');
      expect(heard).toEqual([hostile(good), hostile(bad)]);

      // Then `bad` fails after staging its SQL: delivered one by one, only the others' SQL is sent.
      heard.length = 0;
      await pool.query('delete from outbox_events');
      await commit([lifecycle(moveOf(good))]);
      await commit([lifecycle(moveOf(bad))]);
      const failing: OutboxSubscriber = {
        name: 'failing',
        deliver: async (event, _client, atCommit) => {
          atCommit(sqlOf(event.data.recordId));
          if (event.data.recordId === bad) throw new Error('subscriber down');
        },
      };
      await new OutboxDispatcher({ pool, subscribers: [failing], logger }).drain();
      await listener.query('select 1');
      expect(heard).toEqual([hostile(good)]);
      const { rows } = await pool.query('select record_id, delivered_at is not null as delivered from outbox_events order by id');
      expect(rows).toEqual([
        { record_id: good, delivered: true },
        { record_id: bad, delivered: false },
      ]);
    } finally {
      await listener.end();
    }
  });

  it('a dispatcher killed mid-delivery sends nothing; the next one delivers the live event exactly once', async () => {
    const recordId = randomUUID();
    const listenerPool = new pg.Pool({ connectionString: db.url, max: 2 });
    listenerPool.on('error', () => undefined);
    const pubSub = new PostgresPubSub({ pool: listenerPool, url: db.url, logger });
    await pubSub.start();
    const received: unknown[] = [];
    const iterator = pubSub.subscribe('RECORD_LIFECYCLE', recordId)[Symbol.asyncIterator]();
    const collecting = (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        received.push(next.value);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await commit([lifecycle(moveOf(recordId))]);

    // Dispatcher 1 publishes inside its transaction, then hangs; its connection is then killed (as if its process died).
    const live = liveSubscriber(pubSub);
    let hung: (() => void) | undefined;
    const hanging: OutboxSubscriber = { name: 'hang', deliver: () => new Promise<void>((resolve) => (hung = resolve)) };
    // Named, so that only its connection is killed (never the test's own pools).
    const dyingPool = new pg.Pool({ connectionString: db.url, max: 1, application_name: 'dying-dispatcher' });
    dyingPool.on('error', () => undefined);
    const dying = new OutboxDispatcher({ pool: dyingPool, subscribers: [live, hanging], logger }).drain().catch((error: unknown) => error);
    const dyingInTransaction = `datname = current_database() and application_name = 'dying-dispatcher' and state = 'idle in transaction'`;
    // Killed only once it hangs in the subscriber (between its own statements it is idle in transaction too).
    await waitFor(async () => hung !== undefined && (await pool.query(`select count(*)::int as n from pg_stat_activity where ${dyingInTransaction}`)).rows[0].n > 0);
    await pool.query(`select pg_terminate_backend(pid) from pg_stat_activity where ${dyingInTransaction}`);
    hung?.();
    // The killed delivery failed (an error from another realm: compare by shape, not by class).
    const outcome = (await dying) as { message?: unknown };
    expect(typeof outcome.message).toBe('string');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toHaveLength(0);

    await new OutboxDispatcher({ pool, subscribers: [live], logger }).drain();
    await waitFor(async () => received.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toEqual([expect.objectContaining({ recordId, trigger: 'submit' })]);

    await iterator.return?.();
    await collecting;
    await pubSub.close();
    await listenerPool.end();
    await dyingPool.end().catch(() => undefined);
  });

  describe("inline: events that notifying alone delivers go out with their change's commit", () => {
    let wakes = 0;
    /** Notifies each event on the PubSub's channel, as the GraphQL subscriber does; a move named 'hold' needs the dispatcher (as a seal's jobs do). */
    const notifier: OutboxSubscriber = {
      name: 'notifier',
      deliver: async () => undefined,
      notifications: (event) =>
        event.type === 'record_lifecycle' && event.data.trigger === 'hold' ? undefined : [JSON.stringify({ topic: `${event.data.recordId} ${event.type === 'record_lifecycle' ? event.data.trigger : ''}` })],
    };
    const inlineJournal = new EventJournal({
      sealContext: { sealCertificateSha256: null, anchor: null, publicBaseUrl: 'http://127.0.0.1' },
      onCommitted: () => undefined,
      inline: { subscribers: [notifier], wake: () => void (wakes += 1) },
    });

    beforeAll(() => {
      orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: ({ em }) => inlineJournal.afterCommit(em) });
    });
    beforeEach(() => {
      wakes = 0;
    });

    /** The topics heard; the journal puts each event's outbox sequence number first in its notification. */
    const topics = (heard: string[]) => heard.map((payload) => (JSON.parse(payload) as { topic: string }).topic);

    const rows = async () => (await pool.query('select record_id, payload->>\'trigger\' as trigger, delivered_at is not null as delivered from outbox_events order by id')).rows;

    it('notifies at the commit, never before it and never for a rollback; writes the rows delivered and wakes no dispatcher', async () => {
      const recordId = randomUUID();
      const { listener, heard } = await listening(PUBSUB_CHANNEL);
      const settle = () => listener.query('select 1');
      try {
        await orm.em.fork().transactional(async (em) => {
          await inlineJournal.write(em, [lifecycle(moveOf(recordId, 'submit')), lifecycle(moveOf(recordId, 'start'))]);
          await settle();
          expect(topics(heard)).toEqual([]);
        });
        await settle();
        expect(topics(heard)).toEqual([`${recordId} submit`, `${recordId} start`]);
        const ids = (await pool.query<{ id: string }>('select id::text from outbox_events where record_id = $1 order by id', [recordId])).rows.map((row) => row.id);
        expect(heard.map((payload) => (JSON.parse(payload) as { seq: string }).seq)).toEqual(ids);
        expect(heard[0]!.startsWith('{"seq":')).toBe(true);
        expect(await rows()).toEqual([
          { record_id: recordId, trigger: 'submit', delivered: true },
          { record_id: recordId, trigger: 'start', delivered: true },
        ]);
        expect(wakes).toBe(0);

        heard.length = 0;
        await expect(
          orm.em.fork().transactional(async (em) => {
            await inlineJournal.write(em, [lifecycle(moveOf(recordId, 'cancel'))]);
            throw new Error('the change fails after its journal');
          }),
        ).rejects.toThrow('the change fails');
        await settle();
        expect(topics(heard)).toEqual([]);
        expect(await rows()).toHaveLength(2);
      } finally {
        await listener.end();
      }
    });

    it("leaves an event to the dispatcher once one before it is waiting, in its change or in the database, and wakes the dispatcher at the commit", async () => {
      const recordId = randomUUID();
      const other = randomUUID();
      const { listener, heard } = await listening(PUBSUB_CHANNEL);
      const settle = () => listener.query('select 1');
      try {
        // In one change: 'hold' waits for the dispatcher, so the move after it waits too.
        await orm.em.fork().transactional((em) => inlineJournal.write(em, [lifecycle(moveOf(recordId, 'submit')), lifecycle(moveOf(recordId, 'hold')), lifecycle(moveOf(recordId, 'after'))]));
        expect(wakes).toBe(1);
        await settle();
        expect(topics(heard)).toEqual([`${recordId} submit`]);
        // Then, while those wait undelivered, a later change's event of that record waits behind them.
        await orm.em.fork().transactional((em) => inlineJournal.write(em, [lifecycle(moveOf(recordId, 'later'))]));
        expect(wakes).toBe(2);
        await orm.em.fork().transactional((em) => inlineJournal.write(em, [lifecycle(moveOf(other, 'elsewhere'))]));
        expect(wakes).toBe(2);
        await settle();
        expect(topics(heard)).toEqual([`${recordId} submit`, `${other} elsewhere`]);
        expect((await rows()).map((row) => [row.trigger, row.delivered])).toEqual([
          ['submit', true],
          ['hold', false],
          ['after', false],
          ['later', false],
          ['elsewhere', true],
        ]);

        // The dispatcher delivers the waiting ones in the order written; after that the record's events go inline again.
        const seen = recorder();
        await new OutboxDispatcher({ pool, subscribers: [seen], logger }).drain();
        expect(seen.seen.map((event) => (event.type === 'record_lifecycle' ? event.data.trigger : event.type))).toEqual(['hold', 'after', 'later']);
        await orm.em.fork().transactional((em) => inlineJournal.write(em, [lifecycle(moveOf(recordId, 'next'))]));
        await settle();
        expect(topics(heard).at(-1)).toBe(`${recordId} next`);
        expect(wakes).toBe(2);
      } finally {
        await listener.end();
      }
    });

    it("holds a record's later events behind its creation until the dispatcher delivered it: every subscriber hears of the record first", async () => {
      const recordId = randomUUID();
      const { listener, heard } = await listening(PUBSUB_CHANNEL);
      const settle = () => listener.query('select 1');
      try {
        // The creation is written with the record, by the ORM's flush, for the dispatcher.
        const em = orm.em.fork();
        openAuditTrail(em, recordId, new Date(), 'create');
        await em.flush();
        // A change right after it, before any dispatcher ran: its event must not overtake the creation.
        await orm.em.fork().transactional((change) => inlineJournal.write(change, [lifecycle(moveOf(recordId, 'submit'))]));
        await settle();
        expect(topics(heard)).toEqual([]);
        expect((await rows()).map((row) => [row.trigger, row.delivered])).toEqual([
          ['create', false],
          ['submit', false],
        ]);
        const seen = recorder();
        await new OutboxDispatcher({ pool, subscribers: [seen], logger }).drain();
        expect(seen.seen.map((event) => (event.type === 'record_lifecycle' ? event.data.trigger : event.type))).toEqual(['create', 'submit']);
        await orm.em.fork().transactional((change) => inlineJournal.write(change, [lifecycle(moveOf(recordId, 'confirm'))]));
        await settle();
        expect(topics(heard)).toEqual([`${recordId} confirm`]);
      } finally {
        await listener.end();
      }
    });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
