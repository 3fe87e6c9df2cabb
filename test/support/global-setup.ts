/** Runs once per jest run: fails fast with a clear message when no database is reachable. */
import pg from 'pg';

export default async function globalSetup(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test` (it starts a local PostgreSQL)');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('select 1');
  await client.end();
}
