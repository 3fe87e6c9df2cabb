import { startTestApp, type TestApp } from '../support/harness.js';
import { until, watchSubscription } from '../support/subscriptions.js';

const verification = (n: number) => `v${n}: verifyRecord(reference: "AGR-0000-000${n % 10}") { recordFound status }`;

/** Anonymous queries cannot buy unbounded work: cost limits refuse them before anything runs. */
describe('GraphQL cost limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  function refusedBeforeExecution(response: { status: number; body: { data?: unknown; errors?: any[] } }, message: RegExp): void {
    // No `data` at all: the operation never ran, so no resolver looked anything up.
    expect(response.body.data).toBeUndefined();
    expect(response.body.errors?.[0]?.message).toMatch(message);
    expect(['validation_error', 'graphql_parse_failed']).toContain(response.body.errors?.[0]?.extensions?.code);
  }

  it('refuses a 4,000-alias query with a clear error and no lookups', async () => {
    const query = `{ ${Array.from({ length: 4000 }, (_, i) => `a${i}:verifyRecord(reference:"AGR-0000-0000"){recordFound}`).join(' ')} }`;
    expect(query.length).toBeLessThan(256 * 1024);
    const response = await t.graphql(query);
    expect(response.status).toBe(400);
    refusedBeforeExecution(response, /token|alias/i);
  });

  it('refuses too many aliases even in a short query', async () => {
    const query = `{ ${Array.from({ length: 40 }, (_, i) => verification(i)).join(' ')} }`;
    const response = await t.graphql(query);
    refusedBeforeExecution(response, /alias/i);
  });

  it('refuses a query nested too deep', async () => {
    const query = '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } } } } } }';
    refusedBeforeExecution(await t.graphql(query), /depth/i);
  });

  it('refuses too many directives', async () => {
    const query = `{ v0: verifyRecord(reference: "AGR-0000-0000") { ${'recordFound @include(if: true) '.repeat(60)} } }`;
    refusedBeforeExecution(await t.graphql(query), /directive/i);
  });

  it('applies the same limits to subscriptions over WebSocket', async () => {
    const token = await t.signIn('ws-limits@example.com');
    const query = `subscription { recordActivity { ${'recordId @include(if: true) '.repeat(60)} } }`;
    const feed = watchSubscription(t, token, query, 'recordActivity', {});
    await until(() => feed.errors.length > 0, 'the refusal');
    expect(JSON.stringify(feed.errors)).toMatch(/directive/i);
    await feed.dispose();
  });

  it('still answers a normal query', async () => {
    const response = await t.graphql(`{ ${verification(1)} }`);
    expect(response.body.data).toEqual({ v1: { recordFound: false, status: null } });
  });
});

describe('GraphQL introspection', () => {
  it('is off when GRAPHQL_INTROSPECTION=false (the production default)', async () => {
    const t = await startTestApp({ GRAPHQL_INTROSPECTION: 'false' });
    try {
      const response = await t.graphql('{ __schema { queryType { name } } }');
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors?.[0]?.message).toMatch(/introspection/i);
    } finally {
      await t.stop();
    }
  });
});
