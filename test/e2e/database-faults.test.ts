import pg from 'pg';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

/** The database's connections die mid-request: answers are 5xx, nothing is half-written, and the service carries on. */
describe('Database connections killed mid-request', () => {
  let t: TestApp;
  let admin: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100' });
    admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
  });
  // After its connections were killed, the service's pools take a while to close: teardown gets more time.
  afterAll(async () => {
    await admin.end();
    await t.stop();
  }, 120_000);

  const killAll = () =>
    admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);

  it('answers 5xx or success, keeps every record whole, and serves the next requests', async () => {
    const token = await t.signIn('faults@example.com');
    const create = () =>
      fetch(`${t.url}/api/v1/agreements`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(agreementBody()),
      }).then((response) => response.status);

    const statuses: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const inFlight = Array.from({ length: 8 }, create);
      await new Promise((resolve) => setTimeout(resolve, 5 * round));
      await killAll();
      statuses.push(...(await Promise.all(inFlight)));
    }
    expect(statuses.filter((status) => status !== 201 && status < 500)).toEqual([]);

    // Nothing half-written: every record that exists has its initiator and its party.
    const broken = await admin.query(
      `select r.id from records r left join participants p on p.record_id = r.id group by r.id having count(p.id) <> 2`,
    );
    expect(broken.rows).toEqual([]);
    const { rows } = await admin.query<{ n: string }>('select count(*) as n from records');
    expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(statuses.filter((status) => status === 201).length);

    // The pool drops dead connections: readiness returns within seconds and the next requests succeed.
    await waitFor(async () => (await t.request('GET', '/health/ready')).status === 200, 10_000);
    for (let i = 0; i < 5; i += 1) expect(await create()).toBe(201);
    expect((await t.request('GET', '/api/v1/identity/agreements', { token })).status).toBe(200);
  });
});
