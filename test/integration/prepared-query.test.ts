import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { preparedQuery } from '../../src/domain/shared/sql.js';
import { openServiceDatabase } from '../support/service-database.js';

/** Hot statements: named prepared statements on the pool, or through the caller's transaction; the same rows either way. */
describe('preparedQuery', () => {
  let orm: MikroORM;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ orm, close } = await openServiceDatabase());
  });
  afterAll(async () => {
    await close();
  });

  const sql = `select v from unnest(?::text[]) as v where v <> ? order by v`;
  const values = [['a', 'b"quoted"', 'back\\slash', 'c,d', 'skip'], 'skip'];
  const expected = [{ v: 'a' }, { v: 'b"quoted"' }, { v: 'back\\slash' }, { v: 'c,d' }];

  it('answers the same rows on the pool, again (prepared), and inside a transaction with an array value', async () => {
    expect(await preparedQuery(orm.em.fork(), sql, values)).toEqual(expected);
    expect(await preparedQuery(orm.em.fork(), sql, values)).toEqual(expected);
    const inside = await orm.em.fork().transactional((em: EntityManager) => preparedQuery(em, sql, values));
    expect(inside).toEqual(expected);
  });

  it('keeps two statements with the same shape apart by their text', async () => {
    const [one] = await preparedQuery<{ n: number }>(orm.em.fork(), 'select ?::int + 1 as n', [1]);
    const [two] = await preparedQuery<{ n: number }>(orm.em.fork(), 'select ?::int + 2 as n', [1]);
    expect([one!.n, two!.n]).toEqual([2, 3]);
  });

  it('refuses a value of the wrong type with the database error, and the pool stays usable', async () => {
    await expect(preparedQuery(orm.em.fork(), 'select ?::int as n', ['not a number'])).rejects.toThrow(/invalid input syntax/);
    expect(await preparedQuery(orm.em.fork(), 'select ?::int as n', [7])).toEqual([{ n: 7 }]);
  });

  it('runs as a named prepared statement inside a transaction too, once parsed per connection', async () => {
    const statement = 'select ?::int * 2 as doubled';
    const seen = await orm.em.fork().transactional(async (em: EntityManager) => {
      const first = await preparedQuery<{ doubled: number }>(em, statement, [21]);
      const second = await preparedQuery<{ doubled: number }>(em, statement, [4]);
      // The transaction's own connection: its prepared statements.
      const prepared = await preparedQuery<{ statement: string; calls: string }>(
        em,
        `select statement, generic_plans + custom_plans as calls from pg_prepared_statements where statement = 'select $1::int * 2 as doubled'`,
        [],
      );
      return { answers: [first[0]!.doubled, second[0]!.doubled], prepared };
    });
    expect(seen.answers).toEqual([42, 8]);
    expect(seen.prepared).toEqual([{ statement: 'select $1::int * 2 as doubled', calls: '2' }]);
  });
});
