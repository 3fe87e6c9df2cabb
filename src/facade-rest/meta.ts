import type { RestOperation } from './operation.js';

const VERSION = '1.0.0';

/** The liveness answer: constant, it reads nothing. */
export const HEALTH_BODY = Object.freeze({ status: 'ok', service: 'record-signing', version: VERSION });

/** Health and diagnostics: no credentials, no GraphQL. */
export function metaOperations(deps: {
  /** Each dependency's state, answered within a deadline (a hung database is `timeout`, not a hung probe). */
  readiness: () => Promise<{ ready: boolean; checks: Record<string, string> }>;
  mcpDiagnostics: () => Promise<Record<string, unknown>>;
}): Record<string, RestOperation> {
  return {
    getHealth: {
      operation: null,
      run: async () => ({ status: 200, body: HEALTH_BODY }),
    },
    getHealthReady: {
      operation: null,
      run: async () => {
        const { ready, checks } = await deps.readiness();
        return ready ? { status: 200, body: { status: 'ready', checks } } : { status: 503, body: { status: 'not_ready', checks } };
      },
    },
    getMcpDiagnostics: {
      operation: null,
      run: async () => ({ status: 200, body: await deps.mcpDiagnostics() }),
    },
  };
}
