import pg from 'pg';
import { auditEntryHash, verifyAuditChain, type AuditTrailEntry } from '../../src/domain/records/audit-trail.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { statusWithin } from '../support/wait.js';

const TRAIL = `query Trail($id: String!) { recordAuditTrail(id: $id) { chainValid entries { seq at actorRole move version methodType toStatus metadataHash prevHash entryHash } } }`;

/**
 * A signature step reads the record's participants, the current version's executions and methods and
 * the head of its audit trail in one statement, right after the record's lock is granted. Shown with
 * the lock held by another transaction that satisfies the step's method and extends the trail: the
 * step waits, then sees both (it finalizes, and its entry follows the holder's).
 */
describe('A signature step after waiting for the record lock', () => {
  let t: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp();
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
  });


  it('sees the methods and the trail as the lock holder committed them', async () => {
    const token = await t.signIn('after-lock@example.com');
    const record = (await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() })).body as { id: string };
    const path = `/api/v1/agreements/${record.id}/signature-execution`;
    expect((await t.request('POST', path, { token })).status).toBe(200);
    expect((await t.request('POST', `${path}/methods/email_otp/start`, { token, body: {} })).status).toBe(200);

    await db.query('begin');
    let held = true;
    try {
      await db.query('select id from records where id = $1 for update', [record.id]);
      // What a change holding the lock might do: satisfy the pending method and journal it.
      await db.query(
        `update signature_methods set status = 'satisfied', step = null, satisfied_at = now(), evidence_hash = $2
          where method_type = 'email_otp' and execution_id = (select id from signature_executions where record_id = $1)`,
        [record.id, `sha256:${'a'.repeat(64)}`],
      );
      const { rows } = await db.query<{ seq: number; entry_hash: string }>('select seq, entry_hash from record_audit_entries where record_id = $1 order by seq desc limit 1', [record.id]);
      const head = rows[0]!;
      const entry = { seq: head.seq + 1, at: new Date().toISOString(), actor_role: 'initiator' as const, move: 'method_satisfied', version: 1, details: { method_type: 'email_otp' }, prev_hash: head.entry_hash };
      await db.query(
        `insert into record_audit_entries (id, record_id, seq, at, actor_role, move, version, details, prev_hash, entry_hash)
         values (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [record.id, entry.seq, entry.at, entry.actor_role, entry.move, entry.version, JSON.stringify(entry.details), entry.prev_hash, auditEntryHash(record.id, entry)],
      );

      const finalize = t.request('POST', `${path}/finalize`, { token, body: {} });
      expect(await statusWithin(finalize, 500)).toBe('waiting');
      await db.query('commit');
      held = false;
      // Read before the lock was granted, the method would still be pending (signature_incomplete).
      const finalized = await finalize;
      expect(finalized.status).toBe(200);
    } finally {
      if (held) await db.query('rollback');
    }

    const { body } = await t.graphql(TRAIL, { id: record.id }, { token });
    const trail = body.data.recordAuditTrail;
    // Read before the lock was granted, the head would be stale: the finalize entry would fork the chain
    // (refused by the unique (record, seq) constraint) or skip the holder's entry.
    expect(trail.chainValid).toBe(true);
    const entries: AuditTrailEntry[] = trail.entries.map((e: any) => ({
      seq: e.seq, at: e.at, actor_role: e.actorRole, move: e.move, version: e.version,
      details: { ...(e.methodType ? { method_type: e.methodType } : {}), ...(e.toStatus ? { to_status: e.toStatus } : {}), ...(e.metadataHash ? { metadata_hash: e.metadataHash } : {}) },
      prev_hash: e.prevHash, entry_hash: e.entryHash,
    }));
    expect(verifyAuditChain(record.id, entries)).toMatchObject({ valid: true });
    expect(entries.slice(-2).map((e) => e.move)).toEqual(['method_satisfied', 'finalized']);
  });

  it('supersedes the signer\'s execution of an earlier version when they start on the new one', async () => {
    const token = await t.signIn('new-version@example.com');
    const record = (await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() })).body as { id: string };
    const path = `/api/v1/agreements/${record.id}/signature-execution`;
    expect((await t.request('POST', path, { token })).body).toMatchObject({ record_version: 1, status: 'in_progress' });
    const edited = await t.request('PATCH', `/api/v1/agreements/${record.id}`, { token, body: { body: 'A new text: we agree to sign version two.' } });
    expect(edited.body).toMatchObject({ current_version: 2 });
    expect((await t.request('POST', path, { token })).body).toMatchObject({ record_version: 2, status: 'in_progress' });
    const { rows } = await db.query('select record_version, status from signature_executions where record_id = $1 order by record_version', [record.id]);
    expect(rows).toEqual([{ record_version: 1, status: 'superseded' }, { record_version: 2, status: 'in_progress' }]);
  });
});
