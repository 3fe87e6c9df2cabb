import { existsSync } from 'node:fs';
import pg from 'pg';
import { openDatabase, ormConfig } from '../../src/infrastructure/database.js';

/** DATABASE_URL's `?host=` (libpq's form for a Unix socket directory) is honoured, as psql and pg honour it. */
describe('DATABASE_URL host parameter', () => {
  it('passes the host parameter to the connection, over the URL host', () => {
    expect(ormConfig({ url: 'postgres://someone@localhost:5432/signing?host=/var/run/postgresql' }).host).toBe('/var/run/postgresql');
    expect(ormConfig({ url: 'postgres://someone@db.internal:5432/signing' }).host).toBeUndefined();
  });

  // A server on this machine (the project-local cluster that npm test starts, or the caller's own).
  const onThisMachine = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(process.env.DATABASE_URL!).hostname);
  (onThisMachine ? it : it.skip)('connects over the server Unix socket when the URL names its directory', async () => {
    const adminUrl = process.env.DATABASE_URL!;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const { rows } = await admin.query<{ directories: string; port: number }>(
      "select current_setting('unix_socket_directories') as directories, current_setting('port')::int as port",
    );
    await admin.end();
    const directory = rows[0]!.directories.split(',')[0]!.trim();
    expect(existsSync(`${directory}/.s.PGSQL.${rows[0]!.port}`)).toBe(true);
    const url = new URL(adminUrl);
    url.searchParams.set('host', directory);
    const orm = await openDatabase({ url: url.toString() });
    try {
      // No client address: the connection is a Unix socket, not TCP to the URL's host.
      const [row] = await orm.em.fork().getConnection().execute<{ address: string | null }[]>('select inet_client_addr()::text as address');
      expect(row!.address).toBeNull();
    } finally {
      await orm.close();
    }
  });
});
