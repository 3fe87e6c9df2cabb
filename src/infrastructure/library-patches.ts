/**
 * Where this service changes the database libraries' behaviour from outside (pg, Kysely), each patch
 * with why and the test that fails when the library changes underneath it
 * (test/integration/library-patches.test.ts). The other two patches live beside their one user:
 * openapi-backend's router in facade-rest/openapi-backend-patch.ts, @libpdf/core's signature
 * dictionary in domain/sealing/libpdf-patch.ts.
 */
import type pg from 'pg';
import { isConnectionLost } from '../domain/shared/database-errors.js';

/** The part of Kysely's pooled connection that transaction control statements go through. */
export type TransactionConnection = { executeQuery(query: { sql: string }): Promise<unknown> };

const TRANSACTION_CONTROL = /^\s*(begin|start transaction|rollback)\b/i;

/**
 * Kysely's controlled transactions hand their connection back to the pool only when `begin`,
 * `commit` or `rollback` succeeds (kysely-org/kysely#1990): on a connection the server has just
 * dropped, `rollback` fails and the connection stays checked out forever, until the pool is
 * exhausted and every request waits out the acquire timeout. When the connection is gone, its
 * transaction is gone with it: `begin` and `rollback` are let through so the transaction is closed
 * and the connection released, and pg's pool discards a released connection that is no longer
 * queryable. The statements that fail report the loss themselves (the next query, or `commit`).
 */
export function releasableWhenLost(connection: TransactionConnection): void {
  const execute = connection.executeQuery.bind(connection);
  connection.executeQuery = async (query) => {
    try {
      return await execute(query);
    } catch (error) {
      if (TRANSACTION_CONTROL.test(query.sql) && isConnectionLost(error)) return { rows: [] };
      throw error;
    }
  };
}

/** The `$n` texts of preparedQuery's statements, and their prepared names. */
const preparedNames = new Map<string, string>();

/** Makes `text` run under its prepared `name` on every pooled connection (preparedQuery calls it once per statement). */
export function rememberPreparedName(text: string, name: string): void {
  preparedNames.set(text, name);
}

/**
 * Inside a transaction, preparedQuery's statements reach the connection through Kysely as text and
 * values, which pg sends unnamed: PostgreSQL parses and plans them on every execution. Each pooled
 * connection of the ORM sends those texts under their prepared names instead (parsed once per
 * connection); any other text goes through as it came.
 */
export function preparedOnConnection(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (config: unknown, values?: unknown, callback?: unknown) => unknown;
  (client as { query: typeof query }).query = (config, values, callback) => {
    const name = typeof config === 'string' && Array.isArray(values) ? preparedNames.get(config) : undefined;
    return name === undefined ? query(config, values, callback) : query({ name, text: config, values }, callback);
  };
}
