import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { agreementBody, startTestApp, type HttpResult, type TestApp } from '../support/harness.js';
import { ManualClock } from '../support/clock.js';
import { waitFor } from '../support/wait.js';

const DAY_MS = 86_400_000;

/** Holds the record's row lock from outside the service, so that a request on it stays running. */
async function holdRecordLock(databaseUrl: string, recordId: string): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select id from records where id = $1 for update', [recordId]);
  return {
    release: async () => {
      await client.query('commit');
      await client.end();
    },
  };
}

async function runningClaims(db: pg.Client): Promise<number> {
  return (await db.query<{ n: number }>(`select count(*)::int as n from idempotency_keys where status = 'running'`)).rows[0]!.n;
}

describe('Idempotency-Key', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let db: pg.Client;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    t = await startTestApp({}, { clock });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    alice = await t.signIn('alice@example.com');
    bob = await t.signIn('bob@example.com');
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
  });

  const create = (token: string, key: string, body = agreementBody()) =>
    t.request('POST', '/api/v1/agreements', { token, body, headers: { 'idempotency-key': key } });

  it('replays the stored answer of a retried REST request, and the change happens once', async () => {
    const key = randomUUID();
    const first = await create(alice, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The body's key order and spacing do not make it another request.
    const { body, ...rest } = agreementBody();
    const retry = await create(alice, key, { ...rest, body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const records = await db.query('select count(*)::int as n from records where title = $1', [agreementBody().title]);
    expect(records.rows[0].n).toBe(1);
  });

  it('accepts the key as a Structured Field string too, and refuses an unusable key naming the header', async () => {
    const key = randomUUID();
    const bare = await create(alice, key);
    const quoted = await create(alice, `"${key}"`);
    expect(quoted.headers.get('idempotent-replayed')).toBe('true');
    expect(quoted.body.id).toBe(bare.body.id);
    const short = await create(alice, 'abc');
    expect(short.status).toBe(422);
    expect(short.body.detail[0]).toMatchObject({ loc: ['header', 'Idempotency-Key'], type: 'idempotency_key_invalid' });
  });

  it('answers 422 when a key is used again with a different request', async () => {
    const key = randomUUID();
    const first = await create(alice, key);
    const other = await create(alice, key, agreementBody({ title: 'Another title' }));
    expect(other.status).toBe(422);
    expect(other.body.detail[0]).toMatchObject({ loc: ['header', 'Idempotency-Key'], type: 'idempotency_key_reused' });
    // Another path with the same body is another request too.
    const elsewhere = await t.request('PATCH', `/api/v1/agreements/${first.body.id}`, { token: alice, body: agreementBody(), headers: { 'idempotency-key': key } });
    expect(elsewhere.status).toBe(422);
  });

  it('keeps the keys of different callers apart', async () => {
    const key = randomUUID();
    const request = agreementBody({ parties: [{ display_name: 'Dana', contact_point_value: 'dana@example.com' }] });
    const mine = await create(alice, key, request);
    // Bob sending Alice's exact request with her key runs his own request, never replays her answer.
    const theirs = await create(bob, key, request);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // Alice's retry still gets her own answer.
    const another = await create(bob, randomUUID(), { ...request, title: 'Bob owns this one' });
    expect(another.status).toBe(201);
    expect((await create(alice, key, request)).body.id).toBe(mine.body.id);
  });

  it('answers 409 with Retry-After while the first request with the key still runs, then replays its answer', async () => {
    const draft = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const key = randomUUID();
    const patch = { title: 'Renamed while locked' };
    const lock = await holdRecordLock(t.databaseUrl, draft.body.id);
    let first: Promise<HttpResult>;
    try {
      first = t.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
      await waitFor(async () => (await runningClaims(db)) === 1);
      const concurrent = await t.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
      expect(concurrent.status).toBe(409);
      expect(concurrent.body.error_code).toBe('idempotency_key_in_use');
      expect(concurrent.headers.get('retry-after')).toBe('1');
    } finally {
      await lock.release();
    }
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body.title).toBe('Renamed while locked');
    const replay = await t.request('PATCH', `/api/v1/agreements/${draft.body.id}`, { token: alice, body: patch, headers: { 'idempotency-key': key } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(done.body);
  });

  it('lets a retry take over the claim of a process that died mid-request, once its lease has passed', async () => {
    const key = randomUUID();
    const request = agreementBody({ title: 'Interrupted' });
    const first = await create(alice, key, request);
    // What a process that died before storing its answer leaves behind: a running claim with a lease.
    const [claim] = (await db.query<{ id: string }>('select id from idempotency_keys order by created_at desc limit 1')).rows;
    // Renewed lately (its lease nearly whole): it runs, try again in a second.
    await db.query(`update idempotency_keys set status = 'running', response = null, locked_until = $2 where id = $1`, [claim!.id, new Date(clock.now().getTime() + 9_000)]);
    const running = await create(alice, key, request);
    expect(running.status).toBe(409);
    expect(running.headers.get('retry-after')).toBe('1');
    // Not renewed for five seconds: its process is gone, and the wait is until its lease runs out.
    await db.query(`update idempotency_keys set locked_until = $2 where id = $1`, [claim!.id, new Date(clock.now().getTime() + 4_500)]);
    const orphaned = await create(alice, key, request);
    expect(orphaned.status).toBe(409);
    expect(orphaned.headers.get('retry-after')).toBe('5');
    expect(orphaned.body.detail).toContain('a retry may take it over in 5 s');
    await db.query(`update idempotency_keys set locked_until = $2 where id = $1`, [claim!.id, new Date(clock.now().getTime() - 1000)]);
    // The same request only: another one with the key is still refused.
    expect((await create(alice, key, agreementBody({ title: 'Other' }))).status).toBe(422);
    const retried = await create(alice, key, request);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.id).not.toBe(first.body.id);
    expect((await create(alice, key, request)).body.id).toBe(retried.body.id);
  });

  it('replays a 204 and a created API key, and stores neither the Idempotency-Key nor the API key in clear', async () => {
    const key = randomUUID();
    const created = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['retrieve'], name: 'ci' }, headers: { 'idempotency-key': key } });
    expect(created.status).toBe(201);
    const again = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['retrieve'], name: 'ci' }, headers: { 'idempotency-key': key } });
    expect(again.body.key).toBe(created.body.key);
    expect(again.headers.get('cache-control')).toBe('no-store');
    const stored = await db.query<{ row: string }>('select row_to_json(k)::text as row from idempotency_keys k');
    for (const { row } of stored.rows) {
      expect(row).not.toContain(created.body.key);
      expect(row).not.toContain(key);
    }
    const keys = await t.request('GET', '/api/v1/api-keys', { token: alice });
    expect(keys.body.api_keys.filter((k: { name: string }) => k.name === 'ci')).toHaveLength(1);

    const revokeKey = randomUUID();
    const revoke = () => t.request('DELETE', `/api/v1/api-keys/${created.body.id}`, { token: alice, headers: { 'idempotency-key': revokeKey } });
    expect((await revoke()).status).toBe(204);
    const replayed = await revoke();
    expect(replayed.status).toBe(204);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays an anonymous code request per client: one code mailed, one verification event', async () => {
    const key = randomUUID();
    const before = t.smtp.messages.length;
    const ask = () => t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'carol@example.com', purpose: 'authenticate' }, headers: { 'idempotency-key': key } });
    const first = await ask();
    const retry = await ask();
    expect(retry.body.verification_event_id).toBe(first.body.verification_event_id);
    await t.smtp.codeFor('carol@example.com', before);
    expect(t.smtp.messages.length - before).toBe(1);
  });

  it('does not keep a 429: once the limit has passed, a retry with the same key runs the request', async () => {
    const email = 'dave@example.com';
    const ask = (headers: Record<string, string> = {}) => t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' }, headers });
    for (let i = 0; i < 5; i += 1) expect((await ask()).status).toBe(200);
    const keys = async () => (await db.query<{ n: number }>('select count(*)::int as n from idempotency_keys')).rows[0]!.n;
    const stored = await keys();
    const key = randomUUID();
    const limited = await ask({ 'idempotency-key': key });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await keys()).toBe(stored);

    clock.advance(2 * 900_000);
    const before = t.smtp.messages.length;
    const retried = await ask({ 'idempotency-key': key });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.verification_event_id).toEqual(expect.any(String));
    await t.smtp.codeFor(email, before);
    // Now the answer is kept: the same key replays it.
    const replayed = await ask({ 'idempotency-key': key });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(retried.body);
  });

  it('applies to GraphQL mutations: replay, 422 for another request, 409 while running; queries ignore it', async () => {
    const mutation = `mutation Create($input: CreateAgreementInput!) { createAgreement(input: $input) { id title } }`;
    const input = { title: 'Over GraphQL', body: 'We agree to share the garden equally and to water it weekly.', onChainFullText: false, onChainIncludeVerifiedParties: false };
    const key = randomUUID();
    const first = await t.graphql(mutation, { input }, { token: alice, headers: { 'idempotency-key': key } });
    expect(first.body.errors).toBeUndefined();
    const retry = await t.graphql(mutation, { input }, { token: alice, headers: { 'idempotency-key': key } });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data).toEqual(first.body.data);
    const other = await t.graphql(mutation, { input: { ...input, title: 'Other' } }, { token: alice, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(other.body.errors![0].extensions).toMatchObject({ code: 'validation_error', issues: [{ type: 'idempotency_key_reused' }] });
    // A REST request with a GraphQL request's key is another request.
    expect((await create(alice, key)).status).toBe(422);

    const query = `query { __typename }`;
    const read = await t.graphql(query, {}, { token: alice, headers: { 'idempotency-key': key } });
    expect(read.status).toBe(200);
    expect(read.headers.get('idempotent-replayed')).toBeNull();

    const update = `mutation Update($id: String!, $input: UpdateAgreementInput!) { updateAgreement(id: $id, input: $input) { id title } }`;
    const id = (first.body.data as { createAgreement: { id: string } }).createAgreement.id;
    const updateKey = randomUUID();
    const lock = await holdRecordLock(t.databaseUrl, id);
    let running: Promise<HttpResult>;
    try {
      running = t.graphql(update, { id, input: { title: 'Locked' } }, { token: alice, headers: { 'idempotency-key': updateKey } });
      await waitFor(async () => (await runningClaims(db)) === 1);
      const concurrent = await t.graphql(update, { id, input: { title: 'Locked' } }, { token: alice, headers: { 'idempotency-key': updateKey } });
      expect(concurrent.status).toBe(409);
      expect(concurrent.body.errors![0].extensions.code).toBe('idempotency_key_in_use');
    } finally {
      await lock.release();
    }
    expect((await running).body.data).toEqual({ updateAgreement: { id, title: 'Locked' } });
  });

  it('keeps keys for 24 hours: afterwards the key is free again and housekeeping deletes it', async () => {
    const key = randomUUID();
    const first = await create(alice, key);
    expect((await t.app.services.housekeeping.sweep()).idempotencyKeys).toBe(0);
    clock.advance(DAY_MS - 60_000);
    // A fresh sign-in (the first session has expired meanwhile) is the same caller: the same identity.
    const later = await t.signIn('alice@example.com');
    const stillKept = await create(later, key, agreementBody({ title: 'Changed a day later' }));
    expect(stillKept.status).toBe(422);
    clock.advance(120_000);
    const reused = await create(later, key, agreementBody({ title: 'Changed a day later' }));
    expect(reused.status).toBe(201);
    expect(reused.body.id).not.toBe(first.body.id);
    const swept = await t.app.services.housekeeping.sweep();
    expect(swept.idempotencyKeys).toBeGreaterThan(0);
    const left = await db.query<{ n: number }>('select count(*)::int as n from idempotency_keys where expires_at <= $1', [clock.now()]);
    expect(left.rows[0]!.n).toBe(0);
  });
});
