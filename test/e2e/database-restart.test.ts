import { startScratchPostgres } from '../../scripts/local-postgres.mjs';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { waitFor } from '../support/wait.js';
import { startInstanceProcess } from '../support/instance-process.js';

type Scratch = Awaited<ReturnType<typeof startScratchPostgres>>;

const status = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(10_000) }).then(
    (response) => response.status,
    () => 0,
  );

/**
 * PostgreSQL restarts under load (a server of the test's own: stopped, then started again). Both
 * instances stay up, say they are not ready while it is down, and recover by themselves: the LISTEN
 * connection comes back, reads are fresh, the outbox and the jobs go on.
 */
describe('A database restart', () => {
  let scratch: Scratch;
  let t: TestApp;
  let other: Awaited<ReturnType<typeof startInstanceProcess>>;

  beforeAll(async () => {
    scratch = await startScratchPostgres();
    t = await startTestApp(
      { JOBS_ENABLED: 'true', RECORD_CACHE_SECONDS: '300', LISTING_CACHE_SECONDS: '300', REQUEST_TIMEOUT_SECONDS: '3' },
      { databaseUrl: scratch.url },
    );
    other = await startInstanceProcess(scratch.url, t.config.smtpUrl!, { JOB_LOCK_SECONDS: '2' });
  }, 120_000);
  afterAll(async () => {
    if (other?.child.exitCode === null) other.child.kill('SIGTERM');
    await t?.stop();
    await scratch?.remove();
  }, 120_000);

  it('leaves every instance up, not ready while it is down, and everything working again after', async () => {
    const sealed = await sealTwoPartyAgreement(t);
    await waitFor(async () => (await t.request('GET', `/api/v1/agreements/${sealed.id}/document`, { token: sealed.initiator })).status === 200, 60_000);
    const token = await t.signIn('load@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Before the restart' }) });
    expect(created.status).toBe(201);
    // Read once: the record's view is now cached (for 300 s) on this instance.
    expect((await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token })).body.title).toBe('Before the restart');

    // Load on both instances for the whole restart: reads, writes and readiness probes.
    let loading = true;
    const answers: number[] = [];
    const load = (async () => {
      while (loading) {
        const batch = await Promise.all([
          status(`${t.url}/health/ready`),
          status(`${other.url}/health/ready`),
          fetch(`${t.url}/api/v1/identity/agreements`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(30_000) }).then((r) => r.status, () => 0),
          fetch(`${other.url}/api/v1/agreements`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(agreementBody()),
            signal: AbortSignal.timeout(30_000),
          }).then((r) => r.status, () => 0),
        ]);
        answers.push(...batch);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    await new Promise((resolve) => setTimeout(resolve, 500));
    await scratch.stop();
    // Down: both instances answer readiness with 503, naming the database.
    const down = await t.request('GET', '/health/ready');
    expect(down.status).toBe(503);
    expect(down.body.checks.database).not.toBe('ok');
    expect(await status(`${other.url}/health/ready`)).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await scratch.start();

    // Back: both ready again, their LISTEN connections included.
    await waitFor(async () => (await status(`${t.url}/health/ready`)) === 200 && (await status(`${other.url}/health/ready`)) === 200, 60_000);
    const ready = await t.request('GET', '/health/ready');
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', notifications: 'ok' } });
    loading = false;
    await load;
    expect(other.child.exitCode).toBeNull();
    // The load saw only answers, never a crash: 2xx, or 5xx while the database was away.
    expect(answers.filter((code) => code === 0)).toEqual([]);
    expect(answers.filter((code) => code >= 400 && code < 500)).toEqual([]);

    // Reads are fresh: a change made on the other instance after the restart shows here.
    const renamed = await fetch(`${other.url}/api/v1/agreements/${created.body.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'After the restart' }),
    });
    expect(renamed.status).toBe(200);
    await waitFor(async () => (await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token })).body.title === 'After the restart', 10_000);

    // The outbox and the jobs go on: a record sealed now gets its PDF and card within a minute.
    const after = await sealTwoPartyAgreement(t, {}, { initiator: 'carol@example.com', party: 'dave@example.com' });
    await waitFor(async () => (await t.request('GET', `/api/v1/agreements/${after.id}/document`, { token: after.initiator })).status === 200, 60_000);
    expect(t.logs()).toContain('pubsub listener reconnected');
    expect(other.output()).toContain('pubsub listener reconnected');
    expect(other.child.exitCode).toBeNull();
  }, 240_000);

  it('answers 503 within the deadlines while the database is frozen, and recovers when it thaws', async () => {
    const token = await t.signIn('frozen@example.com');
    scratch.freeze();
    try {
      // Readiness: its own deadline (2 s), never a hung probe.
      const startedAt = Date.now();
      const ready = await t.request('GET', '/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.database).toBe('timeout');
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      // A request: 503 `unavailable` with Retry-After at the request deadline (3 s here), over REST and GraphQL.
      const rest = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Frozen' }) });
      expect(rest.status).toBe(503);
      expect(rest.body.error_code).toBe('unavailable');
      expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
      const graph = await t.graphql('{ myRecords(limit: 5) { total } }', {}, { token });
      expect(graph.status).toBe(503);
      expect(graph.body.errors?.[0]?.extensions?.code).toBe('unavailable');
      expect(Number(graph.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Date.now() - startedAt).toBeLessThan(30_000);
    } finally {
      scratch.thaw();
    }
    await waitFor(async () => (await status(`${t.url}/health/ready`)) === 200, 60_000);
    expect((await t.request('GET', '/api/v1/identity/agreements', { token })).status).toBe(200);
    expect(other.child.exitCode).toBeNull();
  }, 120_000);

  it('answers 503 `unavailable` (not 500) while the database refuses connections', async () => {
    const token = await t.signIn('refused@example.com');
    await scratch.stop();
    try {
      const rest = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Refused' }) });
      expect(rest.status).toBe(503);
      expect(rest.body.error_code).toBe('unavailable');
      const graph = await t.graphql('{ myRecords(limit: 5) { total } }', {}, { token });
      expect(graph.status).toBe(503);
      expect(graph.body.errors?.[0]?.extensions?.code).toBe('unavailable');
      expect(t.logs()).not.toMatch(/"level":50[^\n]*unexpected error/);
    } finally {
      await scratch.start();
    }
    await waitFor(async () => (await status(`${t.url}/health/ready`)) === 200, 60_000);
  }, 120_000);
});
