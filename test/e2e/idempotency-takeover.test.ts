import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { productionSettings, startProductionProcess, type ProductionProcess } from '../support/production-process.js';
import { waitFor } from '../support/wait.js';

/**
 * An instance killed while it runs a request with an Idempotency-Key: the retry, on another instance,
 * is told the truth. While the claim's process lived it renewed the claim; once that stopped, the 409
 * says how long until the claim may be taken over, and a retry after that wait runs the request.
 * Before, the 409 said `Retry-After: 1` for the two minutes until takeover.
 */
describe('Idempotency-Key after the instance running the request was killed', () => {
  let seed: TestApp;
  let production: Awaited<ReturnType<typeof productionSettings>>;
  let instance: ProductionProcess | undefined;
  let db: pg.Client;

  beforeAll(async () => {
    [seed, production] = await Promise.all([startTestApp(), productionSettings()]);
    db = new pg.Client({ connectionString: seed.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    instance?.kill();
    await db.end();
    await seed.stop();
    fs.rmSync(production.dir, { recursive: true, force: true });
  });

  it('answers 409 with the true wait until takeover, and a retry after that wait runs the request', async () => {
    const alice = await seed.signIn('alice@example.com');
    instance = await startProductionProcess({
      ...production.env,
      DATABASE_URL: seed.databaseUrl,
      SMTP_URL: seed.config.smtpUrl!,
      MIGRATE_ON_START: 'false',
      JOBS_ENABLED: 'false',
      CHAIN_RPC_URL: '',
    });
    const draft = await seed.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const key = randomUUID();
    const patch = { title: 'Renamed after a crash' };
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${alice}`, 'idempotency-key': key };

    // The record's row held from outside: the instance's request claims the key, then waits on the lock.
    const lock = new pg.Client({ connectionString: seed.databaseUrl });
    await lock.connect();
    await lock.query('begin');
    await lock.query('select id from records where id = $1 for update', [draft.body.id]);
    const first = fetch(`${instance.url}/api/v1/agreements/${draft.body.id}`, { method: 'PATCH', headers, body: JSON.stringify(patch) }).catch(() => null);
    await waitFor(async () => (await db.query(`select 1 from idempotency_keys where status = 'running'`)).rowCount === 1);
    // Alive: it renews its claim, and a retry is told to come back in a second.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const meanwhile = await seed.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.headers.get('retry-after')).toBe('1');

    instance.child.kill('SIGKILL');
    await instance.exited;
    expect(await first).toBeNull();
    await lock.query('rollback');
    await lock.end();

    // Once a renewal is overdue, the 409 gives the wait until takeover (at most the 10 s lease).
    let told = 1;
    await waitFor(async () => {
      const retry = await seed.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
      expect(retry.status).toBe(409);
      expect(retry.body.error_code).toBe('idempotency_key_in_use');
      told = Number(retry.headers.get('retry-after'));
      return told > 1;
    }, 10_000);
    expect(told).toBeLessThanOrEqual(10);

    // Waiting what it said is enough: the retry takes the claim over and runs the request, once.
    await new Promise((resolve) => setTimeout(resolve, told * 1000));
    const taken = await seed.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
    expect(taken.status).toBe(200);
    expect(taken.body.title).toBe('Renamed after a crash');
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    const replay = await seed.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  }, 90_000);
});
