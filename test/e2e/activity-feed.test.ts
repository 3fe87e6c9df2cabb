import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { until, watchSubscription } from '../support/subscriptions.js';

const FEED = 'subscription { recordActivity { recordId kind event status } }';
type Activity = { recordId: string; kind: string; event: string; status: string | null };

describe('The activity feed (recordActivity) for live dashboards', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100' });
    b = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100' }, { sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
  });

  it("streams every step on the subscriber's records, from another instance, and nothing of others", async () => {
    const alice = await a.signIn('alice@example.com');
    const bob = await b.signIn('bob@example.com');
    const mallory = await b.signIn('mallory@example.com');
    const bobFeed = watchSubscription<Activity>(b, bob, FEED, 'recordActivity', {});
    const malloryFeed = watchSubscription<Activity>(b, mallory, FEED, 'recordActivity', {});
    await Promise.all([bobFeed.ready, malloryFeed.ready]);

    const created = await a.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    await signWithEmailOtp(a, alice, 'alice@example.com', created.body.id);
    await a.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });

    await until(() => bobFeed.events.some((e) => e.kind === 'lifecycle' && e.event === 'submit'), 'the submit in the feed', 8000);
    // The creation first: the record's later steps wait behind it until the dispatcher delivered it.
    const mine = bobFeed.events.filter((e) => e.recordId === created.body.id);
    expect(mine.map((e) => `${e.kind}:${e.event}`)).toEqual([
      'lifecycle:create',
      'signature:execution_started',
      'signature:method_started',
      'signature:method_satisfied',
      'signature:finalized',
      'lifecycle:submit',
    ]);
    expect(mine.at(-1)?.status).toBe('pending_confirmation');
    expect(malloryFeed.events).toEqual([]);
    expect(bobFeed.errors).toEqual([]);
    await Promise.all([bobFeed.dispose(), malloryFeed.dispose()]);
  });
});
