import type { Writable } from 'node:stream';
import { DomainError } from '../domain/shared/errors.js';
import type { RestOperation } from './operation.js';
import { CACHE_CONTROL } from '../domain/shared/cache-policy.js';

const VERSION = '1.0.0';

/** The liveness answer: constant, it reads nothing. */
export const HEALTH_BODY = Object.freeze({ status: 'ok', service: 'record-signing', version: VERSION });

/** Health and diagnostics: no credentials, no GraphQL. */
export function metaOperations(deps: {
  /** Each dependency's state, answered within a deadline (a hung database is `timeout`, not a hung probe). */
  readiness: () => Promise<{ ready: boolean; checks: Record<string, string> }>;
  mcpDiagnostics: () => Promise<Record<string, unknown>>;
  /**
   * An export's ZIP by its single-use link (domain/exports): redeemed, then streamed. The one download
   * that cannot pass through the catalog: GraphQL answers whole values, and a ZIP of 10,000 sealed
   * records is written as it is read. The ticket is the proof, as for the card and PDF tickets.
   */
  exportZip?: (token: string) => Promise<{ filename: string; write: (out: Writable) => Promise<void> }>;
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
    downloadExport: {
      operation: null,
      issueLocation: 'path',
      run: async (request) => {
        if (!deps.exportZip) throw new DomainError('not_found', 'This download link is unknown, already used or expired');
        const zip = await deps.exportZip(request.params.token ?? '');
        return {
          status: 200,
          stream: zip.write,
          headers: {
            'Content-Type': 'application/zip',
            'Content-Disposition': `attachment; filename="${zip.filename}"`,
            'Cache-Control': CACHE_CONTROL.secret,
            'Referrer-Policy': 'no-referrer',
          },
        };
      },
    },
  };
}
