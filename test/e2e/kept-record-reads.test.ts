import pg from 'pg';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { settled } from '../support/settled.js';
import { waitFor } from '../support/wait.js';

/**
 * A record read's answer, over REST and over GraphQL, is kept as the bytes sent, per credential and
 * request, and dropped with the record views (read-caches.ts): what is sent from memory is what the
 * operation answers, to the credential that asked, until anything the record is made from changes.
 */
describe('Record reads kept as sent', () => {
  let t: TestApp;
  let sql: pg.Client;
  const METRICS_TOKEN = 'kept-reads-metrics-token';
  const RECORD = 'query KeptRecord($id: String!) { record(id: $id) { id title status parties { displayName } } }';

  beforeAll(async () => {
    t = await startTestApp({ RECORD_CACHE_SECONDS: '300', LISTING_CACHE_SECONDS: '300', METRICS_TOKEN });
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql.end();
    await t.stop();
  });

  const caches = () => t.app.services.caches;

  /** A write the database's triggers do not see (replication role): nothing drops the kept answers. */
  const renameUnseen = async (id: string, title: string) => {
    await sql.query('begin');
    await sql.query("set local session_replication_role = 'replica'");
    await sql.query('update records set title = $2 where id = $1', [id, title]);
    await sql.query('commit');
  };

  const json = async (response: Promise<Response>): Promise<any> => (await response).json();
  const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(body) });
  /** The headers of an answer but those that differ on every answer (the budget's remaining count among them). */
  const stableHeaders = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => !['date', 'x-request-id', 'ratelimit'].includes(name)));
  /** A counter's value from a scrape, summed over the series whose labels include `labels`. */
  const counted = async (name: string, labels: Record<string, string>) => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const families = parsePrometheusTextFormat(await response.text()) as { name: string; metrics: { labels?: Record<string, string>; value?: string }[] }[];
    const series = families.find((family) => family.name === name)?.metrics ?? [];
    return series.filter((metric) => Object.entries(labels).every(([label, value]) => metric.labels?.[label] === value)).reduce((sum, metric) => sum + Number(metric.value ?? 0), 0);
  };
  const remaining = (headers: Headers) => Number(/;r=(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]);

  it('answers a kept GraphQL record read as Apollo did, until a committed write drops it', async () => {
    const token = await t.signIn('kept-reader@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Kept title', parties: [{ display_name: 'Kept Party', contact_point_value: 'kept-party@example.com' }] }) });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await settled(sql);

    const first = await post(token, { query: RECORD, variables: { id } });
    const firstBody = await first.text();
    expect(JSON.parse(firstBody)).toMatchObject({ data: { record: { id, title: 'Kept title', status: 'draft' } } });
    expect(JSON.parse(firstBody).data.record.parties).toContainEqual({ displayName: 'Kept Party' });
    expect(caches().graphqlRecordAnswers!.size).toBe(1);
    const requestsBefore = await counted('http_requests_total', { route: '/graphql', status_class: '2xx' });
    const operationsBefore = await counted('rss_graphql_operations_total', { operation: 'KeptRecord', outcome: 'ok' });
    const again = await post(token, { query: RECORD, variables: { id } }, { 'x-request-id': 'kept-graphql-read' });
    expect(await again.text()).toBe(firstBody);
    // Answered from memory, it is still logged under its request id and counted as a request and an operation.
    expect(again.headers.get('x-request-id')).toBe('kept-graphql-read');
    expect(t.logs()).toContain('"id":"kept-graphql-read"');
    await waitFor(async () => (await counted('http_requests_total', { route: '/graphql', status_class: '2xx' })) === requestsBefore + 1, 5_000);
    expect(await counted('rss_graphql_operations_total', { operation: 'KeptRecord', outcome: 'ok' })).toBe(operationsBefore + 1);
    expect(stableHeaders(again.headers)).toEqual(stableHeaders(first.headers));
    // A kept answer is budgeted as any operation.
    expect(remaining(again.headers)).toBe(remaining(first.headers) - 1);

    // Kept: a write nothing notifies is not seen, over GraphQL or REST (each kept for this credential)...
    expect((await t.request('GET', `/api/v1/agreements/${id}`, { token })).body.title).toBe('Kept title');
    expect(caches().recordAnswers!.size).toBe(1);
    await renameUnseen(id, 'Renamed unseen');
    expect((await json(post(token, { query: RECORD, variables: { id } }))).data.record.title).toBe('Kept title');
    expect((await t.request('GET', `/api/v1/agreements/${id}`, { token })).body.title).toBe('Kept title');
    // ...until a committed write to a table a record is made from (here another record, by plain SQL) drops both.
    await sql.query("update participants set display_name = 'Someone else' where record_id <> $1", [id]);
    await waitFor(async () => (await json(post(token, { query: RECORD, variables: { id } }))).data.record.title === 'Renamed unseen', 10_000);
    expect((await t.request('GET', `/api/v1/agreements/${id}`, { token })).body.title).toBe('Renamed unseen');
  });

  it('keeps an answer for its credential and request only, and never an error or another field', async () => {
    const token = await t.signIn('kept-owner@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Owned', parties: [{ display_name: 'Other', contact_point_value: 'kept-other@example.com' }] }) });
    const id = created.body.id as string;
    await settled(sql);
    expect((await json(post(token, { query: RECORD, variables: { id } }))).data.record.title).toBe('Owned');

    // Another identity asking the same request: its own answer (not found), not the owner's; never kept.
    const stranger = await t.signIn('kept-stranger@example.com');
    const refused = await json(post(stranger, { query: RECORD, variables: { id } }));
    expect(refused.data?.record ?? null).toBeNull();
    expect(refused.errors?.[0]?.extensions?.code).toBe('not_found');
    // Another credential of the owner's identity, an API key that may not retrieve: refused, not the session's answer.
    const key = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create'], name: 'no retrieve' } });
    expect(key.status).toBe(201);
    const byKey = await json(fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key.body.key }, body: JSON.stringify({ query: RECORD, variables: { id } }) }));
    expect(byKey.errors?.[0]?.extensions?.code).toBe('missing_scope');
    // A query with another root field runs every time.
    const keptNow = caches().graphqlRecordAnswers!.size;
    expect((await json(post(token, { query: `query { record(id: "${id}") { id } contactPoints { value } }` }))).data.record.id).toBe(id);
    expect(caches().graphqlRecordAnswers!.size).toBe(keptNow);

    // Signing out ends the kept answer's use at once: the credential is checked before anything kept is sent.
    expect((await t.request('POST', '/api/v1/identity/sign-out', { token })).status).toBeLessThan(300);
    const after = await json(post(token, { query: RECORD, variables: { id } }));
    expect(after.data?.record ?? null).toBeNull();
    expect(after.errors?.[0]?.extensions?.code).toBe('unauthenticated');
  });

  it('answers a body that is not a JSON object or array the same with credentials as without', async () => {
    const token = await t.signIn('kept-malformed@example.com');
    // Not JSON, JSON that is no object or array, and a document too deep to be looked at.
    const deep = `{ record(id: "x") ${'{ a '.repeat(40)}${'}'.repeat(41)}`;
    for (const body of ['{"query": ', '"a string"', '[1, 2', JSON.stringify({ query: deep })]) {
      const send = (headers: Record<string, string>) => fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      const anonymous = await send({});
      const withToken = await send({ authorization: `Bearer ${token}` });
      expect({ body, status: withToken.status }).toEqual({ body, status: anonymous.status });
      expect(withToken.status).toBe(400);
      expect(await withToken.json()).toEqual(await anonymous.json());
    }
  });

  it('budgets a kept read once, kept or not, and refuses past the budget as any operation', async () => {
    const limited = await startTestApp({ RECORD_CACHE_SECONDS: '300', GRAPHQL_OPERATIONS_PER_MINUTE: '3' }, { sameDatabaseAs: t });
    try {
      const token = await limited.signIn('kept-budget@example.com');
      const created = await limited.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Budgeted', parties: [{ display_name: 'Other', contact_point_value: 'kept-budget-other@example.com' }] }) });
      const id = created.body.id as string;
      await settled(sql);
      const read = () => fetch(`${limited.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query: RECORD, variables: { id } }) });
      // Executed and kept, then answered from memory twice: three operations, each counted once.
      const answers = [await read(), await read(), await read()];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(answers.map((answer) => remaining(answer.headers))).toEqual([2, 1, 0]);
      expect(limited.app.services.caches.graphqlRecordAnswers!.size).toBe(1);
      const refused = await read();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('rate_limited');
    } finally {
      await limited.stop();
    }
  });
});
