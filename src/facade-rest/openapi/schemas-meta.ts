/**
 * components.schemas of the meta routes (health, MCP diagnostics) and the two REST error bodies
 * (decisions.md: 422 -> HTTPValidationError, every other error -> ErrorResponse).
 */
import { arrayOf, enumOf, int, obj, ref, str, type Schema } from './helpers.js';

export function metaAndErrorSchemas(): Record<string, Schema> {
  return {
    HealthResponse: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Liveness: a JSON object mapping string to string.',
      examples: [{ status: 'ok' }],
    },
    HealthReadyResponse: obj(
      {
        status: enumOf(['ready', 'not_ready']),
        checks: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Per dependency (e.g. `database`): `ok` or a short failure reason.',
        },
      },
      ['status'],
    ),
    McpDiagnosticsResponse: obj(
      {
        status: str({ description: '`ok` when the MCP endpoints accept requests.' }),
        protocol_version: str({ description: 'Latest MCP protocol version the server negotiates.' }),
        endpoints: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Paths of the MCP endpoints, e.g. `{"direct": "/mcp", "oauth": "/mcp/oauth"}`.',
        },
        tool_count: int({ minimum: 0 }),
        tools: arrayOf(str(), { description: 'Names of the tools in the discovery catalogue.' }),
      },
      ['status', 'protocol_version', 'tool_count', 'tools'],
      { description: 'Non-secret diagnostics of the MCP endpoints.' },
    ),

    ValidationError: obj(
      {
        loc: arrayOf({ anyOf: [{ type: 'string' }, { type: 'integer' }] }, { description: 'Location, e.g. `["body", "parties", 0]`.' }),
        msg: str(),
        type: str(),
      },
      'all',
    ),
    HTTPValidationError: obj({ detail: arrayOf(ref('ValidationError')) }, 'all'),
    ErrorResponse: obj(
      {
        detail: str({ description: 'Human-readable message. Never a stack trace or a secret.' }),
        error_code: str({
          description:
            'Machine code, e.g. `unauthenticated`, `bearer_required`, `missing_scope`, `forbidden`, `not_found`, ' +
            '`invalid_transition`, `stale_version`, `counter_active`, `acknowledgement_required`, `rate_limited`.',
        }),
        retry_after_seconds: int({ minimum: 0, description: 'Present on 429.' }),
      },
      ['detail', 'error_code'],
    ),
  };
}
