import type { MikroORM } from '@mikro-orm/postgresql';
import type { RestOperation } from './operation.js';

const VERSION = '1.0.0';

/** The liveness answer: constant, it reads nothing. */
export const HEALTH_BODY = Object.freeze({ status: 'ok', service: 'record-signing', version: VERSION });

/** Health and diagnostics: no credentials, no GraphQL. */
export function metaOperations(deps: { orm: MikroORM; mcpDiagnostics: () => Promise<Record<string, unknown>> }): Record<string, RestOperation> {
  return {
    getHealth: {
      operation: null,
      run: async () => ({ status: 200, body: HEALTH_BODY }),
    },
    getHealthReady: {
      operation: null,
      run: async () => {
        // A second try: one pooled connection the database has just dropped is not unreadiness.
        for (let attempt = 0; attempt < 2; attempt += 1) {
          try {
            await deps.orm.em.fork().execute('select 1');
            return { status: 200, body: { status: 'ready', checks: { database: 'ok' } } };
          } catch {
            // try again once
          }
        }
        return { status: 503, body: { status: 'not_ready', checks: { database: 'unavailable' } } };
      },
    },
    getMcpDiagnostics: {
      operation: null,
      run: async () => ({ status: 200, body: await deps.mcpDiagnostics() }),
    },
  };
}
