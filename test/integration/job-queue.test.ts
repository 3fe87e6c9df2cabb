import pg from 'pg';
import pino from 'pino';
import { createQueue, defineJob } from '../../src/jobs/queue.js';
import { JOBS_SAVED } from '../../src/jobs/job-channel.js';
import { PostgresPubSub } from '../../src/graph/pubsub.js';
import { PUBSUB_CHANNEL } from '../../src/domain/shared/record-changes.js';
import { createTestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';

const silent = pino({ level: 'silent' });

/**
 * The job queue on PostgreSQL: a new job wakes every instance's processor over the service's one
 * LISTEN connection (the PubSub's), running it sends no job-state notifications, and a job's lock is
 * short and renewed while it runs.
 */
describe('Job queue', () => {
  let db: { url: string; drop: () => Promise<void> };
  let listener: pg.Client;
  let pool: pg.Pool;
  let pubSub: PostgresPubSub;
  const heard: { channel: string; topic: string | null }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (message) => {
      const topic = message.payload ? ((JSON.parse(message.payload) as { topic?: string }).topic ?? null) : null;
      heard.push({ channel: message.channel, topic });
    });
    await listener.query(`listen "${PUBSUB_CHANNEL}"`);
    await listener.query('listen "agenda:jobs"');
    await listener.query('listen "agenda:jobs:state"');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pubSub = new PostgresPubSub({ pool, url: db.url, logger: silent });
    await pubSub.start();
  });
  afterAll(async () => {
    await pubSub.close();
    await pool.end();
    await listener.end();
    await db.drop();
  });

  it('wakes the processors for a new job over the PubSub and sends nothing for its start, success and completion', async () => {
    const { agenda, close } = await createQueue({ databaseUrl: db.url, logger: silent, pubSub, processEvery: '1 minute', lockLifetimeMs: 5000 });
    const ran: string[] = [];
    let succeeded = 0;
    agenda.define<{ n: number }>('test.job', async (job) => void ran.push(`job ${job.attrs.data.n}`));
    agenda.on('success:test.job', () => void (succeeded += 1));
    try {
      await agenda.start();
      // Polling once a minute: the jobs run this soon only because their wake-ups arrive.
      await agenda.now('test.job', { n: 1 });
      await agenda.now('test.job', { n: 2 });
      await waitFor(async () => succeeded === 2, 20_000);
      await agenda.now('test.job', { n: 3 });
      await waitFor(async () => succeeded === 3 && heard.filter((h) => h.topic === JOBS_SAVED).length >= 3, 20_000);
      expect(ran.sort()).toEqual(['job 1', 'job 2', 'job 3']);
      // No LISTEN connection or channel of the backend's own.
      expect(heard.filter((h) => h.channel.startsWith('agenda:'))).toEqual([]);
    } finally {
      await agenda.stop();
      await close();
    }
  });

  it('keeps a long job locked by its heartbeat: no other worker runs it, though it outlives the lock lifetime', async () => {
    const queues = await Promise.all([0, 1].map(() => createQueue({ databaseUrl: db.url, logger: silent, pubSub, processEvery: 100, lockLifetimeMs: 600 })));
    const runs: number[] = [];
    let finished = 0;
    queues.forEach(({ agenda }, index) => {
      defineJob(agenda, 'test.long', async () => {
        runs.push(index);
        await new Promise((resolve) => setTimeout(resolve, 2500));
        finished += 1;
      });
    });
    try {
      await Promise.all(queues.map(({ agenda }) => agenda.start()));
      await queues[0]!.agenda.now('test.long', {});
      await waitFor(async () => finished === 1, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(runs).toHaveLength(1);
    } finally {
      for (const { agenda, close } of queues) {
        await agenda.stop();
        await close();
      }
    }
  });

  it('gives a dead worker\'s job to another worker once its lock lapses', async () => {
    const { agenda, close } = await createQueue({ databaseUrl: db.url, logger: silent, pubSub, processEvery: 100, lockLifetimeMs: 1000 });
    let ran = 0;
    defineJob(agenda, 'test.orphan', async () => void (ran += 1));
    try {
      // A job locked a moment ago by a worker that then died (no heartbeat since).
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      await agenda.start();
      const job = await agenda.create('test.orphan', {}).schedule(new Date(Date.now() + 60_000)).save();
      await admin.query(`update agenda_jobs set locked_at = now(), next_run_at = now() where id = $1`, [String(job.attrs._id)]);
      await admin.end();
      await waitFor(async () => ran === 1, 20_000);
    } finally {
      await agenda.stop();
      await close();
    }
  });
});
