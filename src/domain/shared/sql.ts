import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * What the domain asks of PostgreSQL beyond the ORM's entity manager, as ports: the domain names no
 * driver, and src/infrastructure/database.ts provides both (the ORM's pg pool is a `SqlPool`).
 */

/** A connection that runs statements (parameters as `$n`). */
export interface SqlConnection {
  query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/** A connection taken from a pool and held across statements. */
export interface PooledSqlConnection extends SqlConnection {
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  /** Gives the connection back; with an error, the pool closes it instead. */
  release(error?: Error): void;
}

/**
 * Connections of their own, for what one statement through the ORM cannot do: a session-level
 * advisory lock taken and given back on one connection, the outbox's claim, delivery and commit in
 * one transaction that its subscribers write into.
 */
export interface SqlPool {
  connect(): Promise<PooledSqlConnection>;
}

/** Runs hot statements as named prepared statements on the ORM's pool (the ORM extension `PREPARED_STATEMENTS` names). */
export interface PreparedStatements {
  query<Row>(em: EntityManager, sql: string, values: unknown[]): Promise<Row[]>;
}

/** The name the ORM's configuration registers `PreparedStatements` under. */
export const PREPARED_STATEMENTS = 'record-signing/prepared-statements';

/**
 * A hot statement (`?` placeholders, no other `?`) as a named prepared statement: PostgreSQL parses
 * and plans it once per connection, and no value is formatted into SQL text. Inside a transaction it
 * runs through the transaction. The ORM this entity manager belongs to provides the runner.
 */
export async function preparedQuery<Row>(em: EntityManager, sql: string, values: unknown[]): Promise<Row[]> {
  const statements = em.config.getExtension<PreparedStatements>(PREPARED_STATEMENTS);
  if (statements === undefined) throw new Error('this ORM runs no prepared statements: open it with openDatabase (src/infrastructure/database.ts)');
  return statements.query<Row>(em, sql, values);
}
