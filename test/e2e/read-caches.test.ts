import pg from 'pg';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { waitFor } from '../support/wait.js';

/**
 * Reused principals and public answers are dropped on every instance when what they depend on
 * changes. The caches here live far longer than the deadlines below, so only the LISTEN/NOTIFY
 * invalidation can make these pass.
 */
describe('Read caches across instances', () => {
  let a: TestApp;
  let b: TestApp;
  const long = { PRINCIPAL_CACHE_SECONDS: '300', PUBLIC_ANSWER_CACHE_SECONDS: '3600', LISTING_CACHE_SECONDS: '300', RECORD_CACHE_SECONDS: '300' };

  beforeAll(async () => {
    a = await startTestApp(long);
    b = await startTestApp(long, { sameDatabaseAs: a });
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
  });

  /**
   * Until every domain event is delivered and every mail sent: their subscribers commit on either
   * instance, and any commit drops that instance's pages (which a "really kept" check must not meet).
   */
  const settled = (sql: pg.Client) =>
    waitFor(async () => {
      const { rows } = await sql.query<{ busy: boolean }>(
        "select exists (select 1 from outbox_events where delivered_at is null) or exists (select 1 from mail_outbox where status in ('pending', 'sending')) as busy",
      );
      return !rows[0]!.busy;
    }, 10_000);

  /**
   * Renames a record with the triggers off (replication role), once nothing else is under way: after
   * the last change settled, a notification still on its way (a loaded machine delays them) is given
   * a second to land, then `warm` reads fill the caches again, so that only the rename follows them.
   */
  const renameUnseen = async (sql: pg.Client, id: string, warm: () => Promise<unknown>) => {
    await settled(sql);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await warm();
    await sql.query('begin');
    await sql.query("set local session_replication_role = 'replica'");
    await sql.query("update records set title = 'Renamed unseen' where id = $1", [id]);
    await sql.query('commit');
  };

  const titles = async (app: TestApp, token: string) =>
    ((await app.request('GET', '/api/v1/identity/agreements', { token })).body.agreements as { title: string | null }[]).map((record) => record.title);

  it('a listing is served from memory until anything its records are made from changes, on any instance and by any path', async () => {
    const token = await a.signIn('lister@example.com');
    const tokenOnB = await b.signIn('lister@example.com');
    const create = (title: string) => a.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title, parties: [{ display_name: 'Other', contact_point_value: 'listed-other@example.com' }] }) });
    const first = await create('First listed');
    expect(first.status).toBe(201);
    expect(await titles(a, token)).toEqual(['First listed']);
    expect(await titles(b, tokenOnB)).toEqual(['First listed']);

    // The instance that creates lists the new record at once (its own commit drops its pages);
    // the other as soon as the database's notification arrives.
    expect((await create('Second listed')).status).toBe(201);
    expect(await titles(a, token)).toEqual(['Second listed', 'First listed']);
    await waitFor(async () => (await titles(b, tokenOnB)).length === 2, 10_000);

    const sql = new pg.Client({ connectionString: a.databaseUrl });
    await sql.connect();
    try {
      // A write the triggers do not see (replication role) shows the pages really are kept...
      await renameUnseen(sql, first.body.id, () => Promise.all([titles(a, token), titles(b, tokenOnB)]));
      expect(await titles(a, token)).toEqual(['Second listed', 'First listed']);
      expect(await titles(b, tokenOnB)).toEqual(['Second listed', 'First listed']);
      // ...and any committed write to a table a view is made from, by any path (here plain SQL),
      // drops them on every instance: a participant's row this time.
      await sql.query("update participants set display_name = 'Other, renamed' where record_id = $1 and role = 'party'", [first.body.id]);
      await waitFor(async () => (await titles(a, token)).includes('Renamed unseen'), 10_000);
      await waitFor(async () => (await titles(b, tokenOnB)).includes('Renamed unseen'), 10_000);
      // A write that rolls back notifies nothing and changes nothing.
      await sql.query('begin');
      await sql.query("update records set title = 'Rolled back' where id = $1", [first.body.id]);
      await sql.query('rollback');
      expect(await titles(b, tokenOnB)).toEqual(['Second listed', 'Renamed unseen']);
    } finally {
      await sql.end();
    }
  });

  it("a listing's kept answer is for the credential and the query that asked it", async () => {
    const token = await a.signIn('keyed-lister@example.com');
    const created = await a.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Keyed', parties: [{ display_name: 'Other', contact_point_value: 'keyed-other@example.com' }] }) });
    expect(created.status).toBe(201);
    expect(await titles(a, token)).toEqual(['Keyed']);
    // The same identity with an API key that may not retrieve: refused, not answered from the session's entry.
    const key = await a.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create'], name: 'no retrieve' } });
    expect(key.status).toBe(201);
    const refused = await a.request('GET', '/api/v1/identity/agreements', { apiKey: key.body.key as string });
    expect(refused.status).toBe(403);
    // Another query is another answer (here: none of that status), and the first is still kept as it was.
    const sealedOnly = await a.request('GET', '/api/v1/identity/agreements?status=sealed', { token });
    expect(sealedOnly.status).toBe(200);
    expect(sealedOnly.body.agreements).toEqual([]);
    const again = await a.request('GET', '/api/v1/identity/agreements', { token });
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect((again.body.agreements as { title: string }[]).map((record) => record.title)).toEqual(['Keyed']);
  });

  it('a record read is served from memory until anything it is made from changes, on any instance and by any path', async () => {
    const token = await a.signIn('reader@example.com');
    const tokenOnB = await b.signIn('reader@example.com');
    const created = await a.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Read me', parties: [{ display_name: 'Other', contact_point_value: 'read-other@example.com' }] }) });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const read = async (app: TestApp, as: string) => (await app.request('GET', `/api/v1/agreements/${id}`, { token: as })).body as { title: string; parties: { display_name: string }[] };
    const graphTitle = async (app: TestApp, as: string) => (await app.graphql('query ($id: String!) { record(id: $id) { title } }', { id }, { token: as })).body.data?.record.title as string;
    expect((await read(a, token)).title).toBe('Read me');
    expect((await read(b, tokenOnB)).title).toBe('Read me');
    expect(await graphTitle(b, tokenOnB)).toBe('Read me');

    // The instance that writes reads its write at once; the other as soon as the notification arrives.
    expect((await a.request('PATCH', `/api/v1/agreements/${id}`, { token, body: { title: 'Edited' } })).status).toBe(200);
    expect((await read(a, token)).title).toBe('Edited');
    await waitFor(async () => (await read(b, tokenOnB)).title === 'Edited', 10_000);
    await waitFor(async () => (await graphTitle(b, tokenOnB)) === 'Edited', 10_000);

    const sql = new pg.Client({ connectionString: a.databaseUrl });
    await sql.connect();
    try {
      // A write the triggers do not see (replication role) shows the reads really are kept...
      await renameUnseen(sql, id, () => Promise.all([read(a, token), read(b, tokenOnB)]));
      expect((await read(a, token)).title).toBe('Edited');
      expect((await read(b, tokenOnB)).title).toBe('Edited');
      // ...and a committed write by plain SQL to another table the view is made from drops them everywhere.
      await sql.query("update participants set display_name = 'Other, renamed' where record_id = $1 and role = 'party'", [id]);
      for (const [app, as] of [[a, token], [b, tokenOnB]] as const) {
        await waitFor(async () => (await read(app, as)).title === 'Renamed unseen', 10_000);
        expect((await read(app, as)).parties.map((party) => party.display_name)).toContain('Other, renamed');
      }
      // A write that rolls back changes nothing.
      await sql.query('begin');
      await sql.query("update records set title = 'Rolled back' where id = $1", [id]);
      await sql.query('rollback');
      expect((await read(b, tokenOnB)).title).toBe('Renamed unseen');
    } finally {
      await sql.end();
    }
    // Who reads is part of the key: a stranger is not answered from a reader's entry.
    const stranger = await b.signIn('stranger-reader@example.com');
    expect((await b.request('GET', `/api/v1/agreements/${id}`, { token: stranger })).status).toBe(404);
  });

  it('a key revoked on one instance stops working on another that had just used it', async () => {
    const token = await a.signIn('revoker@example.com');
    const created = await a.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } });
    expect(created.status).toBe(201);
    expect((await b.request('GET', '/api/v1/identity/agreements', { apiKey: created.body.key })).status).toBe(200);
    expect((await a.request('DELETE', `/api/v1/api-keys/${created.body.id}`, { token })).status).toBe(204);
    // The revoking instance refuses at once; the other as soon as the notification arrives.
    expect((await a.request('GET', '/api/v1/identity/agreements', { apiKey: created.body.key })).status).toBe(401);
    await waitFor(async () => (await b.request('GET', '/api/v1/identity/agreements', { apiKey: created.body.key })).status === 401, 10_000);
  });

  it('a sealed record superseded through one instance answers superseded on another that cached its public answers', async () => {
    const sealed = await sealTwoPartyAgreement(a, {}, { initiator: 'cache-a@example.com', party: 'cache-b@example.com' });
    expect((await b.request('GET', `/api/v1/public/verify/${sealed.reference}`)).body).toMatchObject({ status: 'sealed', current_authority: sealed.reference });
    expect((await b.request('GET', `/api/v1/public/agreements/${sealed.reference}`)).body.status).toBe('sealed');
    const amendment = await a.request('POST', `/api/v1/agreements/${sealed.id}/amend`, {
      token: sealed.initiator,
      body: { body: 'We agree to share the garden equally, and to water it twice a week from now on.' },
    });
    expect(amendment.status).toBe(201);
    const draft = amendment.body as { id: string; agr_reference: string };
    expect((await signWithEmailOtp(a, sealed.initiator, 'cache-a@example.com', draft.id)).status).toBe(200);
    expect((await a.request('POST', `/api/v1/agreements/${draft.id}/submit`, { token: sealed.initiator })).status).toBe(200);
    expect((await signWithEmailOtp(a, sealed.party, 'cache-b@example.com', draft.id)).body.status).toBe('sealed');
    await waitFor(async () => {
      const verified = (await b.request('GET', `/api/v1/public/verify/${sealed.reference}`)).body;
      return verified.status === 'superseded' && verified.current_authority === draft.agr_reference;
    }, 10_000);
    await waitFor(async () => (await b.request('GET', `/api/v1/public/agreements/${sealed.reference}`)).body.status === 'superseded', 10_000);
  });
});
