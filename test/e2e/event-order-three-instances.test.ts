import fs from 'node:fs';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { RECORD_EVENT_TYPES } from '../../src/domain/webhooks/events.js';
import { webhookEventViolation } from '../support/contract.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { productionSettings, startProductionProcess, type ProductionProcess } from '../support/production-process.js';
import { until, watchSubscription } from '../support/subscriptions.js';
import { waitFor } from '../support/wait.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const RECORDS = Number(process.env.ORDER_TEST_RECORDS ?? 100);
const SUBSCRIBERS = 20;
const FEED = 'subscription { recordActivity { recordId kind event cursor } }';
type Activity = { recordId: string; kind: string; event: string; cursor: string };

/**
 * Three instances of the built service in production mode on one database, 100 notarizations created,
 * signed and sealed with every request going to another instance, one webhook endpoint and 20 feed
 * subscribers spread over the instances: every record's events reach the endpoint and every
 * subscriber in the order they were written, none lost, none twice. Before, one instance could
 * deliver a record's later event while another held its earlier one (webhooks: record.anchored
 * before record.created; subscribers: share_card_ready before blockchain_confirmed), and the
 * creation reached subscribers after the record's first steps.
 */
/** The instances' metrics token: a subscription is ready once its instance's `rss_live_listeners` counts it. */
const METRICS = 'event-order-metrics-token-0123456789';

describe('Event order on three instances', () => {
  let seed: TestApp;
  let production: Awaited<ReturnType<typeof productionSettings>>;
  const instances: ProductionProcess[] = [];
  const receiver = new WebhookReceiver();
  let db: pg.Client;

  beforeAll(async () => {
    // The seed migrates, signs the notary in and registers the endpoint; it takes no other traffic.
    // One deployment: the seed shares the instances' SERVER_SECRET (it seals the endpoint's secret they open).
    production = await productionSettings();
    seed = await startTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', SERVER_SECRET: production.env.SERVER_SECRET! });
    await receiver.start();
    db = new pg.Client({ connectionString: seed.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    for (const instance of instances) instance.kill();
    await db?.end();
    await receiver.stop();
    await seed?.stop();
    if (production) fs.rmSync(production.dir, { recursive: true, force: true });
  });

  it("delivers every record's events in written order to the endpoint and to 20 subscribers, none lost, none twice", async () => {
    const bearer = await seed.signIn('notary@example.com');
    const key = (await seed.request('POST', '/api/v1/api-keys', { token: bearer, body: { scopes: ['create', 'retrieve', 'verify'] } })).body.key as string;
    const endpoint = await seed.request('POST', '/api/v1/webhooks', { token: bearer, body: { url: `${receiver.url}/hook`, events: [...RECORD_EVENT_TYPES] } });
    expect(endpoint.status).toBe(201);

    const env = {
      ...production.env,
      METRICS_TOKEN: METRICS,
      DATABASE_URL: seed.databaseUrl,
      SMTP_URL: seed.config.smtpUrl!,
      MIGRATE_ON_START: 'false',
      CHAIN_RPC_URL: '',
      DATABASE_POOL_MAX: '5',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_POLL_MS: '200',
      GRAPHQL_OPERATIONS_PER_MINUTE: '1000000',
      CLIENT_CODE_CALLS_PER_HOUR: '100000',
      CLIENT_VERIFICATIONS_PER_MINUTE: '100000',
      METHOD_STARTS_PER_WINDOW: '100000',
      JOB_LOCK_SECONDS: '5',
    };
    instances.push(...(await Promise.all([0, 1, 2].map(() => startProductionProcess(env)))));
    const urls = instances.map((instance) => instance.url);

    const feeds = Array.from({ length: SUBSCRIBERS }, (_, n) => watchSubscription<Activity>({ url: urls[n % 3]!, metricsToken: METRICS }, bearer, FEED, 'recordActivity', {}));
    await Promise.all(feeds.map((feed) => feed.ready));

    // Each request of a record goes to the next instance.
    let turn = 0;
    const call = async (method: string, path: string, body?: unknown) => {
      const url = urls[turn++ % 3]!;
      const response = await fetch(url + path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await response.json()) as Record<string, any>;
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const notarize = async (n: number) => {
      const record = await call('POST', '/api/v1/agreements', agreementBody({ type: 'notarization', parties: [], title: `Ordered notarization ${n}` }));
      const execution = `/api/v1/agreements/${record.id}/signature-execution`;
      await call('POST', execution);
      const started = await call('POST', `${execution}/methods/api_key/start`, {});
      const { challenge } = started.methods.find((m: { method_type: string }) => m.method_type === 'api_key').step;
      await call('POST', `${execution}/methods/api_key/submit`, { confirmation: challenge });
      const finalized = await call('POST', `${execution}/finalize`, {});
      if (finalized.status !== 'sealed') await call('POST', `/api/v1/agreements/${record.id}/submit`);
      return record.id as string;
    };
    const ids: string[] = [];
    const workers = Array.from({ length: 8 }, async () => {
      while (ids.length < RECORDS) {
        const n = ids.length;
        ids.push('');
        ids[n] = await notarize(n);
      }
    });
    await Promise.all(workers);

    // Everything written and delivered: every record's share card (a notarization has no PDF), the outbox empty, the endpoint's deliveries done.
    const count = async (sql: string) => Number((await db.query<{ n: string }>(sql, [ids])).rows[0]!.n);
    await waitFor(async () => (await count(`select count(*) as n from sealed_artifacts where record_id = any($1::uuid[]) and kind = 'share_card'`)) === RECORDS, 360_000).catch(async (error: unknown) => {
      console.log((await db.query(`select status, count(*) from records group by status`)).rows, (await db.query(`select kind, count(*) from sealed_artifacts group by kind`)).rows, instances.map((i) => i.output().slice(-1500)));
      throw error;
    });
    await waitFor(async () => (await count(`select count(*) as n from outbox_events where delivered_at is null and record_id = any($1::uuid[])`)) === 0, 60_000);
    await waitFor(async () => (await count(`select count(*) as n from webhook_deliveries where status <> 'delivered' and record_id = any($1::uuid[])`)) === 0, 60_000);

    // What was written, per record, in order.
    const written = new Map<string, string[]>(ids.map((id) => [id, []]));
    const rows = await db.query<{ record_id: string; type: string; payload: Record<string, string> }>(
      `select record_id, type, payload from outbox_events where record_id = any($1::uuid[]) order by id`,
      [ids],
    );
    for (const row of rows.rows) {
      const p = row.payload;
      const label = row.type === 'record_lifecycle' ? `lifecycle:${p.trigger}` : row.type === 'signature_progress' ? `signature:${p.event}` : `artifact:${p.artifact}_${p.state}`;
      written.get(row.record_id)!.push(label);
    }
    expect(written.get(ids[0]!)![0]).toBe('lifecycle:create');

    // Every subscriber: each record's events exactly as written.
    const total = [...written.values()].reduce((sum, labels) => sum + labels.length, 0);
    await until(() => feeds.every((feed) => feed.events.filter((event) => written.has(event.recordId)).length >= total), 'every feed complete', 30_000);
    for (const feed of feeds) {
      expect(feed.errors).toEqual([]);
      const seen = new Map<string, string[]>(ids.map((id) => [id, []]));
      for (const event of feed.events) seen.get(event.recordId)?.push(`${event.kind}:${event.event}`);
      expect(seen).toEqual(written);
    }

    // The endpoint: each record's deliveries once, in the order they were written, signed as Standard Webhooks says.
    const secret = endpoint.body.secret as string;
    const received = receiver.at('/hook').map((r) => new Webhook(secret).verify(r.body, r.headers) as { type: string; id: string; data: { record_id: string } });
    expect(receiver.at('/hook').map((r) => webhookEventViolation(r.body)).filter(Boolean)).toEqual([]);
    const eventIds = received.map((event) => event.id);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    const deliveries = await db.query<{ record_id: string; type: string }>(`select record_id, type from webhook_deliveries where record_id = any($1::uuid[]) order by seq`, [ids]);
    const expected = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const row of deliveries.rows) expected.get(row.record_id)!.push(row.type);
    const got = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const event of received) got.get(event.data.record_id)?.push(event.type);
    expect(got).toEqual(expected);
    expect(expected.get(ids[0]!)![0]).toBe('record.created');
    expect(expected.get(ids[0]!)).toContain('record.sealed');
    expect(expected.get(ids[0]!)!.at(-1)).toBe('record.artifacts_ready');

    for (const feed of feeds) void feed.dispose();
  }, 600_000);
});
