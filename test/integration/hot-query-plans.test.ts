import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { readableRecordsQuery, signerSnapshotSql, teamRecordsQuery } from '../../src/domain/records/record-access.js';
import { RecordService } from '../../src/domain/records/record-service.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { systemClock } from '../../src/domain/shared/clock.js';
import { openServiceDatabase } from '../support/service-database.js';
import { SESSION_SCOPES } from '../../src/domain/identity/principal.js';

const IDENTITY = '3f1c2d7e-0000-4000-8000-000000000001';

/**
 * The hot queries use indexes. Plans are read with sequential scans discouraged (the tables here
 * are tiny, where a scan is the right plan): a query that still scans has no index it can use.
 */
describe('Hot query plans', () => {
  let orm: MikroORM;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ orm, close } = await openServiceDatabase());
  });
  afterAll(async () => {
    await close();
  });

  async function plan(sql: string, params: unknown[]): Promise<string> {
    return orm.em.fork().transactional(async (em: EntityManager) => {
      await em.execute('set local enable_seqscan = off');
      const rows = await em.execute<{ 'QUERY PLAN': string }[]>(`explain ${sql}`, params);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  it.each([
    ['the list', 'page'],
    ['the count', 'count'],
  ] as const)("the identity's record list (%s) scans no table", async (_name, part) => {
    const query = readableRecordsQuery(IDENTITY, { status: 'draft', type: null, limit: 20, offset: 0 })[part];
    const text = await plan(query.sql, query.params);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it("a team's record list scans no table", async () => {
    const query = teamRecordsQuery(IDENTITY, { status: null, type: null, limit: 20, offset: 0 }).page;
    expect(await plan(query.sql, query.params)).not.toMatch(/Seq Scan/);
  });

  it.each(['id', 'reference'] as const)("a signature step's snapshot (by %s) scans no table", async (by) => {
    const text = await plan(signerSnapshotSql(by), [IDENTITY, IDENTITY, '*', '*', 'email_otp', by === 'id' ? IDENTITY : 'AGR-0000-0000']);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('the messenger challenge lookup uses an index', async () => {
    const text = await plan(
      `select m.id from signature_methods m where m.method_type = 'messenger' and m.status = 'pending' and m.state->>'challenge' = ?`,
      ['abc'],
    );
    expect(text).toMatch(/signature_methods_pending_messenger_challenge_index/);
  });

  it("the expiry job's filter uses an index", async () => {
    const text = await plan(`select id from records where status in (?, ?) and expires_at <= ?`, ['pending_confirmation', 'counter_under_review', new Date()]);
    expect(text).toMatch(/records_status_expires_at_index/);
  });

  it('answers any offset the contract can say (the spec asks only >= 0), and refuses a negative one by name', async () => {
    const records = new RecordService({ orm, clock: systemClock, sealing: { explorerTxUrl: undefined } });
    const principal = { kind: 'session' as const, identityId: IDENTITY, scopes: SESSION_SCOPES, tokenId: IDENTITY, contactPointId: IDENTITY };
    const refused = await records.list(principal, { offset: -1 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).details.issues).toEqual([expect.objectContaining({ path: ['offset'], type: 'out_of_range' })]);
    await expect(records.list(principal, { offset: 10_001 })).resolves.toMatchObject({ records: [], offset: 10_001 });
    await expect(records.list(principal, { offset: 2_147_483_647 })).resolves.toMatchObject({ records: [], offset: 2_147_483_647 });
  });
});
