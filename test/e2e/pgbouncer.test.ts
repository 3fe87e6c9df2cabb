import fs from 'node:fs';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { createTestDatabase } from '../support/database.js';
import { pgbouncerPath, startPgBouncer, type Pooler } from '../support/pgbouncer.js';
import { productionSettings, startProductionProcess, type ProductionProcess } from '../support/production-process.js';
import { remoteApp } from '../support/remote-app.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { CaptureSmtp } from '../support/smtp.js';
import { until, watchSubscription } from '../support/subscriptions.js';
import { waitFor } from '../support/wait.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const describeWithPgBouncer = pgbouncerPath() ? describe : describe.skip;
if (!pgbouncerPath()) console.warn('pgbouncer is not installed: the pooler journey is skipped (sh scripts/ensure-system.sh --test installs it)');

/**
 * Managed PostgreSQL is usually reached through PgBouncer in transaction mode, where startup
 * parameters are refused and consecutive statements may reach different server sessions (no LISTEN,
 * no session locks, no named prepared statements). Two instances of the built service in production
 * mode run with DATABASE_URL at Debian's PgBouncer (1.18, transaction mode) and DATABASE_DIRECT_URL at
 * the server: they migrate, sign people in, sign and seal an agreement with every request going to the
 * other instance, anchor it on a local chain, deliver its webhooks and tell a subscriber on the other
 * instance. Before, the service could not start through the pooler ("unsupported startup parameter").
 */
/** The instances' metrics token: a subscription is ready once its instance's `rss_live_listeners` counts it. */
const METRICS = 'pgbouncer-metrics-token-0123456789';

describeWithPgBouncer('Through PgBouncer in transaction mode', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pooler: Pooler;
  let chain: PrivateChain;
  let production: Awaited<ReturnType<typeof productionSettings>>;
  const smtp = new CaptureSmtp();
  const receiver = new WebhookReceiver();
  const instances: ProductionProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    pooler = await startPgBouncer(database.url);
    chain = await startPrivateChain();
    production = await productionSettings();
    await receiver.start();
    const env = {
      ...production.env,
      METRICS_TOKEN: METRICS,
      DATABASE_URL: pooler.url,
      DATABASE_DIRECT_URL: database.url,
      SMTP_URL: await smtp.start(),
      CHAIN_RPC_URL: chain.url,
      DATABASE_POOL_MAX: '5',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_MS: '200',
      JOB_LOCK_SECONDS: '5',
    };
    // One at a time: the first migrates and deploys the chain registry (LOCAL_STATE_DIR), the second finds both.
    instances.push(await startProductionProcess(env));
    instances.push(await startProductionProcess(env));
  }, 180_000);
  afterAll(async () => {
    for (const instance of instances) instance.kill();
    await Promise.all(instances.map((instance) => instance.exited));
    await receiver.stop();
    await smtp.stop();
    await chain?.stop();
    await pooler?.stop();
    await database?.drop();
    if (production) fs.rmSync(production.dir, { recursive: true, force: true });
  });

  it('signs in, signs, seals, anchors, delivers webhooks and tells a subscriber on the other instance', async () => {
    const urls = instances.map((instance) => instance.url);
    // Each request goes to the next instance, as a non-sticky balancer would send it.
    const service = remoteApp(urls, smtp);
    const { request, signIn } = service;

    const alice = await signIn('alice@example.com');
    const endpoint = await request('POST', '/api/v1/webhooks', { token: alice, body: { url: `${receiver.url}/hook`, events: ['record.sealed', 'record.anchored'] } });
    expect(endpoint.status).toBe(201);
    const feed = watchSubscription<{ recordId: string; status: string | null }>({ url: urls[1]!, metricsToken: METRICS }, alice, 'subscription { recordActivity { recordId status } }', 'recordActivity', {});
    await feed.ready;

    const sealed = await sealTwoPartyAgreement(service);

    await until(() => feed.events.some((event) => event.recordId === sealed.id && event.status === 'sealed'), 'the subscriber on the other instance hears of the seal', 30_000);
    expect(feed.errors).toEqual([]);
    const anchored = await waitFor(async () => {
      const { body } = await request('GET', `/api/v1/agreements/${sealed.id}`, { token: alice });
      return body.blockchain?.status === 'confirmed' ? body.blockchain : null;
    }, 90_000);
    expect(anchored.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    await waitFor(async () => receiver.at('/hook').length >= 2, 60_000);
    const delivered = receiver.at('/hook').map((r) => new Webhook(endpoint.body.secret as string).verify(r.body, r.headers) as { type: string; data: { record_id: string } });
    expect(delivered.map((event) => event.type)).toEqual(['record.sealed', 'record.anchored']);
    expect(delivered.every((event) => event.data.record_id === sealed.id)).toBe(true);
    await feed.dispose();

    // The server's timeouts hold behind the pooler (the role's settings in this database, set at start).
    const direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ setconfig: string[] }>(
        `select setconfig from pg_db_role_setting s join pg_database d on d.oid = s.setdatabase join pg_roles r on r.oid = s.setrole where d.datname = current_database() and r.rolname = current_user`,
      );
      expect(rows[0]?.setconfig).toEqual(expect.arrayContaining(['statement_timeout=30000ms', 'idle_in_transaction_session_timeout=60000ms']));
    } finally {
      await direct.end();
    }
    const pooled = new pg.Client({ connectionString: pooler.url });
    await pooled.connect();
    try {
      expect((await pooled.query<{ statement_timeout: string }>('show statement_timeout')).rows[0]!.statement_timeout).toBe('30s');
    } finally {
      await pooled.end();
    }
    for (const instance of instances) expect(instance.output()).not.toMatch(/unsupported startup parameter|prepared statement .* does not exist|"level":50/);
  }, 240_000);
});
