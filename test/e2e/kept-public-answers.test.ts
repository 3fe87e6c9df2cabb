import pg from 'pg';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { settled } from '../support/settled.js';
import { waitFor } from '../support/wait.js';

/**
 * A sealed record's public view is kept as the bytes sent and answered by the HTTP server before
 * express (kept-public-answers.ts): the answer, its headers, its log line and its count in the metrics
 * are the ones express gives, and it is dropped with the public answers on any committed write.
 */
describe('Public answers kept as sent', () => {
  let t: TestApp;
  let sql: pg.Client;
  const METRICS_TOKEN = 'kept-answers-metrics-token';

  beforeAll(async () => {
    t = await startTestApp({ PUBLIC_ANSWER_CACHE_SECONDS: '3600', METRICS_TOKEN });
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await t.stop();
  });

  const kept = () => t.app.services.caches.publicAnswerBytes!.size;


  /** The headers of an answer but those that differ on every answer. */
  const stableHeaders = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => !['date', 'x-request-id'].includes(name)));

  const publicRecordCount = async () => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const families = parsePrometheusTextFormat(await response.text()) as { name: string; metrics: { labels?: Record<string, string>; value?: string }[] }[];
    const requests = families.find((family) => family.name === 'http_requests_total');
    return (requests?.metrics ?? [])
      .filter((metric) => metric.labels?.route === '/api/v1/public/agreements/{agr_reference}' && metric.labels?.status_class === '2xx')
      .reduce((sum, metric) => sum + Number(metric.value ?? 0), 0);
  };

  it('answers as express does, header for header and byte for byte, with its log line and its count', async () => {
    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'kept-a@example.com', party: 'kept-b@example.com' });
    await settled(sql);
    const url = `${t.url}/api/v1/public/agreements/${sealed.reference}`;
    const countBefore = await publicRecordCount();

    // The first answer comes through express (and is kept); the same question asked again, and asked
    // with the parameters in another order, is answered from the kept bytes.
    const first = await fetch(url);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    expect(kept()).toBe(1);
    const again = await fetch(url, { headers: { 'x-request-id': 'kept-answer-request' } });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(stableHeaders(again.headers)).toEqual(stableHeaders(first.headers));
    expect(stableHeaders(again.headers)).toMatchObject({ 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff' });
    expect(again.headers.get('x-request-id')).toBe('kept-answer-request');
    expect(JSON.parse(firstBody)).toMatchObject({ agr_reference: sealed.reference, status: 'sealed' });

    const svg = await fetch(`${url}?image_representation=compatibility_data_uri`);
    const svgBody = await svg.text();
    expect(svg.status).toBe(200);
    expect(kept()).toBe(2);
    expect(await (await fetch(`${url}?image_representation=compatibility_data_uri`)).text()).toBe(svgBody);
    expect(kept()).toBe(2);

    // Every request is logged and counted, kept or not.
    expect(t.logs()).toContain('"id":"kept-answer-request"');
    await waitFor(async () => (await publicRecordCount()) === countBefore + 4, 5_000);

    // Other methods on the same path are express's (405), never the kept answer.
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });

  it('keeps an answer until any committed write drops it, and never keeps a record that is not final', async () => {
    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'kept-c@example.com', party: 'kept-d@example.com' });
    await settled(sql);
    const read = async () => (await t.request('GET', `/api/v1/public/agreements/${sealed.reference}`)).body as { expires_at: string | null };
    const before = await read();
    expect(kept()).toBeGreaterThan(0);

    // A write the triggers do not see (replication role) shows the answer really is kept...
    await sql.query('begin');
    await sql.query("set local session_replication_role = 'replica'");
    await sql.query("update records set expires_at = '2099-01-01T00:00:00Z' where id = $1", [sealed.id]);
    await sql.query('commit');
    expect(await read()).toEqual(before);
    // ...and any committed write to a table a record view is made from drops it, here another record's participant.
    const other = await t.request('POST', '/api/v1/agreements', {
      token: sealed.initiator,
      body: agreementBody({ parties: [{ display_name: 'Other', contact_point_value: 'kept-other@example.com' }] }),
    });
    expect(other.status).toBe(201);
    await waitFor(async () => (await read()).expires_at?.startsWith('2099-01-01') === true, 10_000);

    // A record pending signatures changes without an event on every read path: its answer is never kept.
    const pending = other.body as { id: string; agr_reference: string };
    expect((await signWithEmailOtp(t, sealed.initiator, 'kept-c@example.com', pending.id)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${pending.id}/submit`, { token: sealed.initiator })).status).toBe(200);
    await waitFor(async () => {
      const { rows } = await sql.query<{ busy: boolean }>(`select exists (select 1 from outbox_events where delivered_at is null) as busy`);
      return !rows[0]!.busy;
    }, 10_000);
    const keptBefore = kept();
    for (let i = 0; i < 3; i++) expect((await t.request('GET', `/api/v1/public/agreements/${pending.agr_reference}`)).body.status).toBe('pending_confirmation');
    expect(kept()).toBeLessThanOrEqual(keptBefore);
  });
});
