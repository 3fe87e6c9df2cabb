import pg from 'pg';
import pino from 'pino';
import { createQueue } from '../../src/jobs/queue.js';
import { createTestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';

/**
 * The job queue on PostgreSQL: a new job still wakes every instance's processor (a NOTIFY on
 * `agenda:jobs`), and running it sends no job-state notifications (start, success, completion: three
 * NOTIFYs a job that nothing here listens to).
 */
describe('Job queue notifications', () => {
  let db: { url: string; drop: () => Promise<void> };
  let listener: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (message) => void heard.push(message.channel));
    await listener.query('listen "agenda:jobs"');
    await listener.query('listen "agenda:jobs:state"');
  });
  afterAll(async () => {
    await listener.end();
    await db.drop();
  });

  it('wakes the processors for a new job and sends nothing for its start, success and completion', async () => {
    const { agenda, close } = await createQueue({ databaseUrl: db.url, logger: pino({ level: 'silent' }), processEvery: '1 minute', lockLifetimeMs: 5000 });
    const ran: string[] = [];
    let succeeded = 0;
    agenda.define<{ n: number }>('test.job', async (job) => void ran.push(`job ${job.attrs.data.n}`));
    agenda.on('success:test.job', () => void (succeeded += 1));
    try {
      await agenda.start();
      await agenda.now('test.job', { n: 1 });
      await agenda.now('test.job', { n: 2 });
      await waitFor(async () => succeeded === 2, 20_000);
      // The listener's notifications come in the order sent: one more job after these marks the end.
      await agenda.now('test.job', { n: 3 });
      await waitFor(async () => succeeded === 3 && heard.filter((channel) => channel === 'agenda:jobs').length === 3, 20_000);
      expect(ran.sort()).toEqual(['job 1', 'job 2', 'job 3']);
      expect(heard.filter((channel) => channel === 'agenda:jobs:state')).toEqual([]);
    } finally {
      await agenda.stop();
      await close();
    }
  });
});
