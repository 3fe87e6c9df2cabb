/**
 * components.schemas of the meta routes (health, MCP diagnostics) and the two REST error bodies
 * (decisions.md: 422 -> HTTPValidationError, every other error -> ErrorResponse).
 */
import { arrayOf, enumOf, int, obj, ref, str, type Schema } from './helpers.js';
import { MAX_JSON_DEPTH } from '../body.js';

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
        protocol_versions: arrayOf(str({ maxLength: 16 }), { maxItems: 16, description: 'Every protocol version the server negotiates, newest first.' }),
        client_protocol_version: str({ description: 'The version the spec has clients send (`2025-06-18`); the negotiated version governs.' }),
        transport: str({ description: 'MCP transport of /mcp, `streamable_http`.' }),
        auth_modes: arrayOf(str({ maxLength: 32 }), { maxItems: 8, description: 'Enabled authentication on /mcp: `public` (no credentials), `api_key`, `mcp_otp` (email code, retrieve only), `mcp_transport_token`, `oauth` (hosted connectors at /mcp/oauth).' }),
        secret_inputs: str({
          enum: ['prefer_url', 'url_only'],
          description:
            'How signature codes and passkey responses reach the service (MCP_SECRET_INPUT): `prefer_url`: on the service\'s own page for a client that declared URL-mode elicitation (capabilities.elicitation.url), else as tool arguments; `url_only`: only on the page (clients without URL-mode elicitation cannot use email_otp or webauthn_passkey).',
        }),
        endpoints: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Paths of the MCP endpoints, e.g. `{"direct": "/mcp", "oauth": "/mcp/oauth"}`.',
        },
        tool_count: int({ minimum: 0 }),
        tools: arrayOf(str({ maxLength: 64 }), { maxItems: 35, description: 'Names of the tools in the discovery catalogue (35 in all).' }),
      },
      ['status', 'protocol_version', 'tool_count', 'tools'],
      { description: 'Non-secret diagnostics of the MCP endpoints.' },
    ),

    ValidationError: obj(
      {
        loc: arrayOf({ anyOf: [{ type: 'string' }, { type: 'integer' }] }, {
          // Where a value can be: the location, then at most MAX_JSON_DEPTH levels of the body.
          maxItems: MAX_JSON_DEPTH + 2,
          description: 'Location, e.g. `["body", "parties", 0]`.',
        }),
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
            '`invalid_transition`, `stale_version`, `counter_active`, `acknowledgement_required`, `rate_limited`, `internal_error`.',
        }),
        retry_after_seconds: int({ minimum: 0, description: 'Present on 429.' }),
      },
      ['detail', 'error_code'],
    ),
  };
}
