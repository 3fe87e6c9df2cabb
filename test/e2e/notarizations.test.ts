import { createHash } from 'node:crypto';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Notarizations (POST /notarizations)', () => {
  let t: TestApp;
  let bearer: string;
  let agentKey: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '50' });
    bearer = await t.signIn('notary@example.com');
    agentKey = (await t.request('POST', '/api/v1/api-keys', { token: bearer, body: { scopes: ['create', 'retrieve', 'verify'] } })).body.key;
  });
  afterAll(async () => {
    await t.stop();
  });

  it('notarizes a file hash as a draft with the next action to sign', async () => {
    const digest = sha('file bytes');
    const response = await t.request('POST', '/api/v1/notarizations', {
      token: bearer,
      body: { content_type: 'file', content_hash: digest.toUpperCase(), filename: 'contract.pdf', size_bytes: 10, mime_type: 'application/pdf' },
    });
    expect(response.status).toBe(201);
    expect(response.body.record).toMatchObject({
      type: 'notarization',
      status: 'draft',
      title: 'contract.pdf',
      notarization: { content_type: 'file', content_hash: `sha256:${digest}`, filename: 'contract.pdf', signature_mode: 'pending_signature' },
    });
    expect(response.body.signature_execution).toBeNull();
    expect(response.body.next_action).toMatchObject({ tool: 'start_or_resume_signature_execution', operation_id: 'startNotarizationSignatureExecution' });
    expect(response.body.human_step).toContain(response.body.record.agr_reference);

    // The notarization routes carry it through the ceremony to the seal.
    const signed = await signWithEmailOtp(t, bearer, 'notary@example.com', response.body.record.id);
    expect(signed.status).toBe(200);
    const submitted = await t.request('POST', `/api/v1/agreements/${response.body.record.id}/submit`, { token: bearer });
    expect(submitted.body.status).toBe('sealed');
  });

  it('notarizes a file larger than 2 GiB (size_bytes is int64), and refuses a negative size at the body field', async () => {
    const big = await t.request('POST', '/api/v1/notarizations', {
      token: bearer,
      body: { content_type: 'file', content_hash: sha('three gigabytes'), filename: 'archive.tar', size_bytes: 3_000_000_000, mime_type: 'application/x-tar' },
    });
    expect(big.status).toBe(201);
    expect(big.body.record.notarization).toMatchObject({ filename: 'archive.tar', size_bytes: 3_000_000_000 });
    const read = await t.request('GET', `/api/v1/notarizations/${big.body.record.id}`, { token: bearer });
    expect(read.body.notarization.size_bytes).toBe(3_000_000_000);
    const graph = await t.graphql('query($id: String!) { record(id: $id) { notarization { sizeBytes } } }', { id: big.body.record.id }, { token: bearer });
    expect(graph.body.data?.record.notarization.sizeBytes).toBe(3_000_000_000);
    const negative = await t.request('POST', '/api/v1/notarizations', {
      token: bearer,
      body: { content_type: 'file', content_hash: sha('negative'), filename: 'x.bin', size_bytes: -1 },
    });
    expect(negative.status).toBe(422);
    expect(negative.body.detail[0].loc).toEqual(['body', 'size_bytes']);
    expect(JSON.stringify(negative.body)).not.toMatch(/GraphQL|Int|Variable/);
  });

  it('checks a text notarization against its normalized text', async () => {
    const text = 'The  release notes\\nfor version 2.0 are final.';
    const normalized = 'The release notes\\nfor version 2.0 are final.'.replace(/\\s+/g, ' ');
    const good = await t.request('POST', '/api/v1/notarizations', { token: bearer, body: { content_type: 'text', content_hash: `sha256:${sha(normalized)}`, text } });
    expect(good.status).toBe(201);
    expect(good.body.record.notarization.text).toBe(text);
    const bad = await t.request('POST', '/api/v1/notarizations', { token: bearer, body: { content_type: 'text', content_hash: sha('something else'), text } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'content_hash']);
  });

  it.each([
    [{ content_type: 'hash', content_hash: sha('x') }, ['body', 'label']],
    [{ content_type: 'hash', content_hash: 'sha256:xyz', label: 'L' }, ['body', 'content_hash']],
    [{ content_type: 'file', content_hash: sha('x'), filename: 'f'.repeat(256) }, ['body', 'filename']],
    [{ content_type: 'hash', content_hash: sha('x'), label: 'l'.repeat(201) }, ['body', 'label']],
    [{ content_type: 'hash', content_hash: sha('x'), label: 'L', agent_identifier: 'a'.repeat(121) }, ['body', 'agent_identifier']],
    [{ content_type: 'hash', content_hash: sha('x'), label: 'L', surprise: true }, ['body', 'surprise']],
    [{ content_type: 'hash', content_hash: sha('x'), label: 'L', co_notarizers: [{ display_name: 'Al', contact_point_value: 'al+x@example.com' }] }, ['body', 'co_notarizers', 0, 'contact_point_value']],
  ])('refuses %j with 422 naming the field', async (body, loc) => {
    const response = await t.request('POST', '/api/v1/notarizations', { token: bearer, body });
    expect(response.status).toBe(422);
    expect(response.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(loc);
  });

  it('auto_seal: an API key notarizes and seals in one call; a bearer session cannot', async () => {
    const body = { content_type: 'hash', content_hash: sha('artifact'), label: 'Build 42', signature_mode: 'auto_seal', agent_identifier: 'ci-bot' };
    const refused = await t.request('POST', '/api/v1/notarizations', { token: bearer, body });
    expect(refused).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });

    const sealed = await t.request('POST', '/api/v1/notarizations', { apiKey: agentKey, body });
    expect(sealed.status).toBe(201);
    expect(sealed.body.record).toMatchObject({ status: 'sealed', sealed_at: expect.any(String), initiator_signature: { status: 'finalized' } });
    expect(sealed.body.signature_execution).toMatchObject({ status: 'finalized', methods: expect.arrayContaining([expect.objectContaining({ method_type: 'api_key', status: 'satisfied' })]) });
    expect(sealed.body.next_action).toBeNull();

    const withCoNotarizer = await t.request('POST', '/api/v1/notarizations', {
      apiKey: agentKey,
      body: { ...body, co_notarizers: [{ display_name: 'Reviewer', contact_point_value: 'reviewer@example.com' }] },
    });
    expect(withCoNotarizer.body.record.status).toBe('pending_confirmation');
    await t.smtp.waitFor('reviewer@example.com');
  });

  it('auto_seal: creation, signature and seal commit together, so a failure at the seal leaves nothing behind', async () => {
    const label = 'Fails at its seal';
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      // A real failure inside the last step: the database refuses this notarization's seal row.
      await db.query(`create function refuse_seal() returns trigger language plpgsql as $$
        begin
          if (select title from records where id = new.record_id) = '${label}' then raise exception 'refused for the test'; end if;
          return new;
        end $$`);
      await db.query('create trigger refuse_seal before insert on record_seals for each row execute function refuse_seal()');
      const body = { content_type: 'hash', content_hash: sha('all or nothing'), label, signature_mode: 'auto_seal' };
      // Checked against the contract like every answer: a 500 has the error shape, and says nothing of the cause.
      const failed = await t.request('POST', '/api/v1/notarizations', { apiKey: agentKey, body });
      expect(failed.status).toBe(500);
      expect(failed.body.error_code).toBe('internal_error');
      expect(JSON.stringify(failed.body)).not.toContain('refused for the test');
      // Neither the record (nor so its participants, executions, audit trail) nor its events stayed.
      const left = await db.query(`select (select count(*) from records where title = $1)::int as records,
        (select count(*) from outbox_events where payload->>'recordId' not in (select id::text from records))::int as orphan_events`, [label]);
      expect(left.rows[0]).toEqual({ records: 0, orphan_events: 0 });

      await db.query('drop trigger refuse_seal on record_seals');
      const sealed = await t.request('POST', '/api/v1/notarizations', { apiKey: agentKey, body });
      expect(sealed.status).toBe(201);
      expect(sealed.body.record.status).toBe('sealed');
      expect((await db.query('select count(*)::int as n from records where title = $1', [label])).rows[0].n).toBe(1);
    } finally {
      await db.query('drop trigger if exists refuse_seal on record_seals');
      await db.end();
    }
  });
});
