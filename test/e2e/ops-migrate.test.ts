import pg from 'pg';
import { migrationsList } from '../../src/domain/migrations/index.js';
import { createTestDatabase } from '../support/database.js';
import { runOps } from '../support/ops.js';

/**
 * `record-ops migrate` (`npm run ops -- migrate`), the one-shot migration a deployment runs as a job
 * before its instances start with MIGRATE_ON_START=false: on an empty database it applies every
 * migration and exits 0; run again, it finds nothing to do.
 */
describe('ops migrate', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('applies the pending migrations of an empty database and exits, then finds it up to date', async () => {
    const first = await runOps(database.url, 'migrate', '--json');
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(first.stdout) as { applied: string[] }).applied).toEqual(migrationsList.map((migration) => migration.name));

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('select name from mikro_orm_migrations order by id');
      expect(rows.map((row) => row.name)).toEqual(migrationsList.map((migration) => migration.name));
    } finally {
      await client.end();
    }

    const again = await runOps(database.url, 'migrate');
    expect(again).toMatchObject({ code: 0, stdout: 'migrate: the database is up to date\n' });
    expect(await runOps(database.url, 'migrate', 'extra')).toMatchObject({ code: 2 });
  }, 120_000);
});
