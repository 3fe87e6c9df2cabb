import { EXPIRE_RECORDS_JOB } from '../../src/jobs/expire-records.job.js';
import { ManualClock } from '../support/clock.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

describe('Expiry of pending records (scheduled job)', () => {
  let t: TestApp;
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true' }, { clock });
  });
  afterAll(async () => {
    await t.stop();
  });

  async function status(token: string, id: string): Promise<string> {
    return (await t.request('GET', `/api/v1/agreements/${id}`, { token })).body.status as string;
  }

  it('expires a pending record once its lapse has passed, and leaves others alone', async () => {
    const alice = await t.signIn('alice@example.com');
    const make = async (lapseDays: number) => {
      const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ lapse_days: lapseDays }) });
      await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id);
      const submitted = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
      expect(submitted.body.status).toBe('pending_confirmation');
      return created.body.id as string;
    };
    const short = await make(1);
    const long = await make(5);
    expect(t.app.agenda).not.toBeNull();

    // Nothing is due yet: a run changes nothing.
    await t.app.agenda!.now(EXPIRE_RECORDS_JOB);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await status(alice, short)).toBe('pending_confirmation');

    clock.advance(2 * 86_400_000);
    // Sessions expire with the moved clock too: sign in again.
    const again = await t.signIn('alice@example.com');
    await t.app.agenda!.now(EXPIRE_RECORDS_JOB);
    const deadline = Date.now() + 10_000;
    while ((await status(again, short)) !== 'expired') {
      if (Date.now() > deadline) throw new Error('the expiry job did not run');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await status(again, long)).toBe('pending_confirmation');
    const late = await t.request('POST', `/api/v1/agreements/${short}/signature-execution`, { token: again });
    expect(late).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });
});
