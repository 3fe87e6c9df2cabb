import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { startInstanceProcess, type InstanceProcess } from '../support/instance-process.js';

/**
 * "Revoked at once" across instances: a request that starts after the revocation's 204 is refused on
 * every instance, even one whose cache still holds the key and has not heard the notification yet
 * (the credential epoch, advanced before the 204, is read before any reuse).
 */
describe('A revoked API key across instances', () => {
  let a: TestApp;
  let b: TestApp;
  let c: InstanceProcess;
  let admin: pg.Client;
  const long = { PRINCIPAL_CACHE_SECONDS: '300' };

  beforeAll(async () => {
    a = await startTestApp(long);
    b = await startTestApp(long, { sameDatabaseAs: a });
    // Another process: its LISTEN connection hears a revocation on its own time, as on another machine.
    c = await startInstanceProcess(a.databaseUrl, a.config.smtpUrl!, { ...long, LOG_LEVEL: 'warn' });
    admin = new pg.Client({ connectionString: a.databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    c.child.kill('SIGTERM');
    await new Promise((resolve) => (c.child.exitCode !== null ? resolve(null) : c.child.once('exit', resolve)));
    await b.stop();
    await a.stop();
  });

  const listing = (app: TestApp, apiKey: string) => app.request('GET', '/api/v1/identity/agreements', { apiKey });
  const listingOn = async (instance: InstanceProcess, apiKey: string) =>
    (await fetch(`${instance.url}/api/v1/identity/agreements`, { headers: { 'x-api-key': apiKey } })).status;

  it('500 revoke-then-use pairs: another process, which had just used each key, accepts none after the 204', async () => {
    const token = await a.signIn('revoke-pairs@example.com');
    let accepted = 0;
    const pair = async () => {
      const created = await a.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } });
      expect(created.status).toBe(201);
      // Used on the other instance first, so that it holds the key's principal for reuse.
      expect(await listingOn(c, created.body.key)).toBe(200);
      expect((await a.request('DELETE', `/api/v1/api-keys/${created.body.id}`, { token })).status).toBe(204);
      if ((await listingOn(c, created.body.key)) !== 401) accepted += 1;
    };
    // Ten at a time: revocations on other keys run while each pair's check is under way.
    for (let round = 0; round < 50; round += 1) await Promise.all(Array.from({ length: 10 }, pair));
    expect(accepted).toBe(0);
  }, 300_000);

  it('an instance that never hears the notification refuses the revoked key all the same', async () => {
    const token = await a.signIn('unheard@example.com');
    const created = await a.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } });
    expect((await listing(b, created.body.key)).status).toBe(200);
    expect((await listing(b, created.body.key)).status).toBe(200);
    // A revocation no instance is told about (written by hand, no NOTIFY), then the epoch's advance.
    await admin.query('update api_keys set revoked_at = now() where id = $1', [created.body.id]);
    expect((await listing(b, created.body.key)).status).toBe(200);
    await admin.query(`select nextval('credential_epoch')`);
    expect((await listing(b, created.body.key)).status).toBe(401);
    expect((await listing(a, created.body.key)).status).toBe(401);
  });
});
