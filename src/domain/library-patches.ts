/**
 * Where this service changes a library's behaviour from outside, each patch with why and the test
 * that fails when the library changes underneath it (test/integration/library-patches.test.ts).
 * (The REST facade's one patch, of openapi-backend's router, is facade-rest/openapi-backend-patch.ts.)
 */
import type { PDF } from '@libpdf/core';
import type pg from 'pg';
import { isConnectionLost } from './database-errors.js';

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

/** DocMDP permissions of a certification signature: 1 no change, 2 form filling and signing, 3 also annotations. */
export type CertificationPermissions = 1 | 2 | 3;

/**
 * @libpdf/core 0.4 signs approval signatures only: its `sign()` builds the signature dictionary itself
 * and offers no DocMDP. The seal must certify the document (ISO 32000 12.8.2.2), so that a viewer
 * warns of any change after it: the next signature dictionary the document registers (the one
 * `sign()` makes, /Type /Sig) is given a /Reference to the DocMDP transform with these permissions,
 * and the catalog a /Perms /DocMDP pointing at it, both written in the signature's own revision.
 * The registry's `register` is restored as soon as that dictionary has passed.
 */
export async function certifyNextSignature(document: PDF, permissions: CertificationPermissions): Promise<void> {
  const { PdfArray, PdfDict, PdfName, PdfNumber } = await import('@libpdf/core');
  const registry = document.context.registry;
  const register = registry.register.bind(registry);
  registry.register = (object) => {
    if (!(object instanceof PdfDict) || object.getName('Type')?.value !== 'Sig') return register(object);
    registry.register = register;
    const transform = PdfDict.of({ Type: PdfName.of('TransformParams'), P: PdfNumber.of(permissions), V: PdfName.of('1.2') });
    object.set('Reference', new PdfArray([PdfDict.of({ Type: PdfName.of('SigRef'), TransformMethod: PdfName.of('DocMDP'), TransformParams: transform })]));
    const ref = register(object);
    document.getCatalog().set('Perms', PdfDict.of({ DocMDP: ref }));
    return ref;
  };
}
