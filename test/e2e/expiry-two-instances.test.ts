import { EXPIRE_RECORDS_JOB } from '../../src/jobs/expire-records.job.js';
import { ManualClock } from '../support/clock.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { until, watchSubscription } from '../support/subscriptions.js';

const SUBSCRIPTION = `subscription($recordId: String!) { recordLifecycle(recordId: $recordId) { trigger toStatus } }`;

describe('Expiry with two instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    a = await startTestApp({ JOBS_ENABLED: 'true' }, { clock });
    b = await startTestApp({ JOBS_ENABLED: 'true' }, { clock, sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
  });

  it('expires each lapsed record exactly once when both instances run the job at the same time', async () => {
    const alice = await a.signIn('alice@example.com');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await a.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ lapse_days: 1 }) });
      await signWithEmailOtp(a, alice, 'alice@example.com', created.body.id);
      expect((await a.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice })).status).toBe(200);
      ids.push(created.body.id as string);
    }
    clock.advance(2 * 86_400_000);
    const token = await b.signIn('alice@example.com');
    const watchers = ids.map((id) => watchSubscription<{ trigger: string; toStatus: string }>(b, token, SUBSCRIPTION, 'recordLifecycle', { recordId: id }));
    await Promise.all(watchers.map((w) => w.ready));

    await Promise.all([a.app.agenda!.now(EXPIRE_RECORDS_JOB), b.app.agenda!.now(EXPIRE_RECORDS_JOB)]);
    await until(() => watchers.every((w) => w.events.length >= 1), 'every record to expire', 10_000);
    // Give a duplicate run every chance to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const watcher of watchers) {
      expect(watcher.events).toEqual([{ trigger: 'lapse', toStatus: 'expired' }]);
      expect(watcher.errors).toEqual([]);
      await watcher.dispose();
    }
    for (const id of ids) expect((await b.request('GET', `/api/v1/agreements/${id}`, { token })).body.status).toBe('expired');
  });
});
