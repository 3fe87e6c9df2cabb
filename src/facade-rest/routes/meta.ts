/** Health and diagnostics at the root: no credentials, no GraphQL. */
import { json } from '../openapi/operation.js';
import { route, type RestRoute } from '../operation.js';

const VERSION = '1.0.0';

/** The liveness answer: constant, it reads nothing. */
export const HEALTH_BODY = Object.freeze({ status: 'ok', service: 'record-signing', version: VERSION });

export function metaRoutes(): RestRoute[] {
  const tags = ['Meta'];
  return [
    route('get', '/health', {
      id: 'getHealth',
      summary: 'Liveness',
      tags,
      ok: json('HealthResponse', 200, 'The service is up.'),
      errors: [],
      runs: { operation: null, run: async () => ({ status: 200, body: HEALTH_BODY }) },
    }),
    route('get', '/health/ready', {
      id: 'getHealthReady',
      summary: 'Readiness',
      tags,
      description:
        'Ready when the service\'s dependencies (database, mail, queue) answer. An instance that is stopping answers 503 at once with `checks.shutdown: stopping` while it still serves for its drain delay, so that a balancer takes it out of rotation.',
      ok: json('HealthReadyResponse', 200, 'The service is ready.'),
      other: [json('HealthReadyResponse', 503, 'Not ready: a dependency does not answer, or the instance is stopping; `checks` names which.')],
      errors: [],
      runs: {
        operation: null,
        run: async (_request, _graph, { services }) => {
          const { ready, checks } = await services.readiness();
          return ready ? { status: 200, body: { status: 'ready', checks } } : { status: 503, body: { status: 'not_ready', checks } };
        },
      },
    }),
    route('get', '/mcp/diagnostics', {
      id: 'getMcpDiagnostics',
      summary: 'MCP diagnostics',
      tags,
      description: 'Non-secret diagnostics of the MCP endpoints (`/mcp`, `/mcp/oauth`).',
      ok: json('McpDiagnosticsResponse', 200, 'MCP diagnostics.'),
      errors: [],
      runs: { operation: null, run: async (_request, _graph, { services }) => ({ status: 200, body: await services.mcpDiagnostics() }) },
    }),
  ];
}
