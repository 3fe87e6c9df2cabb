import pg from 'pg';
import { resilientPool } from '../../src/infrastructure/database.js';
import { createTestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';

/**
 * The server drops a connection the application holds between two statements (a restart, a
 * failover, `pg_terminate_backend`): pg emits `'error'` on it with no listener of pg-pool's, which
 * would end the process. The pool reports the loss and serves the next query on a new connection.
 */
describe('resilientPool', () => {
  let database: { url: string; drop: () => Promise<void> };
  let admin: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await database.drop();
  });

  it('survives the loss of a checked-out connection and serves the next query', async () => {
    const lost: Error[] = [];
    const pool = resilientPool({ connectionString: database.url, max: 1 }, (error) => lost.push(error));
    try {
      const held = await pool.connect();
      const { rows } = await held.query<{ pid: number }>('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
      await waitFor(async () => lost.length > 0, 5_000);
      expect((lost[0] as Error & { code?: string }).code).toBe('57P01');
      held.release(lost[0]);
      // The pool's one slot is free again, on a new connection.
      const next = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
      expect(next.rows[0]!.pid).not.toBe(rows[0]!.pid);
      expect(lost).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it('reports an idle connection lost once', async () => {
    const lost: Error[] = [];
    const pool = resilientPool({ connectionString: database.url, max: 1 }, (error) => lost.push(error));
    try {
      const { rows } = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
      await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
      await waitFor(async () => lost.length > 0, 5_000);
      expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
      expect(lost).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });
});
