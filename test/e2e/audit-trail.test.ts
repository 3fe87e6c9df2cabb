import { createHash } from 'node:crypto';
import pg from 'pg';
import { verifyAuditChain, type AuditTrailEntry } from '../../src/domain/records/audit-trail.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';

const TRAIL = `query Trail($id: String!) { recordAuditTrail(id: $id) { recordId agrReference head chainValid entries { seq at actorRole move version methodType toStatus metadataHash prevHash entryHash } } }`;

describe('Seal and audit trail', () => {
  let t: TestApp;
  let sealed: SealedAgreement;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp();
    sealed = await sealTwoPartyAgreement(t);
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
  });

  it('records every lifecycle move and ceremony step of the record, in order, hash-chained', async () => {
    const { body } = await t.graphql(TRAIL, { id: sealed.reference }, { token: sealed.party });
    const trail = body.data.recordAuditTrail;
    expect(trail.chainValid).toBe(true);
    const moves = trail.entries.map((e: { actorRole: string; move: string }) => `${e.actorRole}:${e.move}`);
    expect(moves).toEqual([
      'initiator:create',
      'initiator:execution_started',
      'initiator:method_started',
      'initiator:method_satisfied',
      'initiator:finalized',
      'initiator:submit',
      'party:execution_started',
      'party:method_started',
      'party:method_satisfied',
      'party:finalized',
      'system:complete_signatures',
    ]);
    expect(trail.entries[3]).toMatchObject({ methodType: 'email_otp', version: 1 });
    for (const [i, entry] of trail.entries.entries()) expect(entry.prevHash).toBe(i === 0 ? null : trail.entries[i - 1].entryHash);
    expect(trail.head).toBe(trail.entries.at(-1).entryHash);
    // Nothing secret or private in any entry.
    const text = JSON.stringify(trail);
    expect(text).not.toContain('@example.com');
  });

  it('seals in the transaction of the move: canonical metadata whose hash is on the record, committing to the trail before the seal', async () => {
    const { rows } = await db.query('select metadata, metadata_hash from record_seals where record_id = $1', [sealed.id]);
    expect(rows).toHaveLength(1);
    const { metadata, metadata_hash } = rows[0];
    expect(metadata_hash).toBe(`sha256:${createHash('sha256').update(Buffer.from(metadata, 'utf8')).digest('hex')}`);
    const parsed = JSON.parse(metadata);
    // RFC 8785: the stored text is already canonical (sorted keys, no whitespace).
    expect(JSON.stringify(sortKeys(parsed))).toBe(metadata);
    expect(parsed).toMatchObject({ schema: 'record-seal/1', reference: sealed.reference, type: 'agreement', version: 1, audit_trail: { entries: 10 } });
    expect(parsed.participants.map((p: { role: string; status: string }) => `${p.role}:${p.status}`)).toEqual(['initiator:signed', 'party:signed']);
    expect(parsed.participants[1].evidence).toEqual([expect.objectContaining({ method_type: 'email_otp', evidence_hash: expect.any(String) })]);
    expect(metadata).not.toContain('@example.com');

    const { body } = await t.graphql(TRAIL, { id: sealed.id }, { token: sealed.initiator });
    const entries = body.data.recordAuditTrail.entries;
    expect(parsed.audit_trail.head).toBe(entries[9].entryHash);
    expect(entries[10]).toMatchObject({ move: 'complete_signatures', toStatus: 'sealed', metadataHash: metadata_hash });

    const record = await t.request('GET', `/api/v1/agreements/${sealed.id}`, { token: sealed.initiator });
    expect(record.body.blockchain).toMatchObject({ status: 'pending', metadata_hash, tx_hash: null });
    expect(record.body.identicon).toMatchObject({ kind: 'document', digest: metadata_hash });
  });

  it('detects an audit row edited after the fact by recomputing the chain', async () => {
    const { body } = await t.graphql(TRAIL, { id: sealed.id }, { token: sealed.initiator });
    const exported: AuditTrailEntry[] = body.data.recordAuditTrail.entries.map((e: any) => ({
      seq: e.seq, at: e.at, actor_role: e.actorRole, move: e.move, version: e.version,
      details: { ...(e.methodType ? { method_type: e.methodType } : {}), ...(e.toStatus ? { to_status: e.toStatus } : {}), ...(e.metadataHash ? { metadata_hash: e.metadataHash } : {}) },
      prev_hash: e.prevHash, entry_hash: e.entryHash,
    }));
    expect(verifyAuditChain(sealed.id, exported)).toEqual({ valid: true, head: exported.at(-1)!.entry_hash, entries: 11 });

    await db.query(`update record_audit_entries set actor_role = 'initiator' where record_id = $1 and seq = 7`, [sealed.id]);
    const after = await t.graphql(TRAIL, { id: sealed.id }, { token: sealed.initiator });
    expect(after.body.data.recordAuditTrail.chainValid).toBe(false);
    const edited = exported.map((e) => (e.seq === 7 ? { ...e, actor_role: 'initiator' as const } : e));
    expect(verifyAuditChain(sealed.id, edited)).toMatchObject({ valid: false, brokenAt: 7 });
    const removed = exported.filter((e) => e.seq !== 4);
    expect(verifyAuditChain(sealed.id, removed)).toMatchObject({ valid: false, brokenAt: 4 });
  });

  it('is readable by the record\'s participants only', async () => {
    const stranger = await t.signIn('mallory@example.com');
    const { body } = await t.graphql(TRAIL, { id: sealed.id }, { token: stranger });
    expect(body.errors?.[0]?.extensions?.code).toBe('not_found');
    const anonymous = await t.graphql(TRAIL, { id: sealed.id });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('unauthenticated');
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}
