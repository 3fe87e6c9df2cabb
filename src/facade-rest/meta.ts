import type { MikroORM } from '@mikro-orm/postgresql';
import type { RestOperation } from './operation.js';

const VERSION = '1.0.0';

/** Health and diagnostics: no credentials, no GraphQL. */
export function metaOperations(deps: { orm: MikroORM }): Record<string, RestOperation> {
  return {
    getHealth: {
      access: 'public',
      run: async () => ({ status: 200, body: { status: 'ok', service: 'record-signing', version: VERSION } }),
    },
    getHealthReady: {
      access: 'public',
      run: async () => {
        try {
          await deps.orm.em.fork().execute('select 1');
          return { status: 200, body: { status: 'ready', checks: { database: 'ok' } } };
        } catch {
          return { status: 503, body: { status: 'not_ready', checks: { database: 'unavailable' } } };
        }
      },
    },
    getMcpDiagnostics: {
      access: 'public',
      run: async () => ({
        status: 200,
        body: {
          status: 'planned',
          protocol_version: '2025-06-18',
          endpoints: { direct: '/mcp', oauth: '/mcp/oauth' },
          tool_count: 0,
          tools: [],
        },
      }),
    },
  };
}
