import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_LIST } from './server.js';
import { mcpAuthenticatedHandler, mcpRouter, type McpFacadeDeps } from './transport.js';

export { mcpAuthenticatedHandler };

export type { McpFacadeDeps, McpSessionStore } from './transport.js';
export type { ConfirmationStore } from './tool.js';
export { TOOL_LIST } from './server.js';

/** Non-secret facts about the MCP endpoints, for GET /mcp/diagnostics. */
export function mcpDiagnostics(options: { authModes: string[]; secretInputs: 'prefer_url' | 'url_only' }) {
  return {
    status: 'ok',
    protocol_version: LATEST_PROTOCOL_VERSION,
    protocol_versions: [...SUPPORTED_PROTOCOL_VERSIONS],
    // What clients send per the spec; the server's negotiated version governs.
    client_protocol_version: '2025-06-18',
    endpoints: { direct: '/mcp', oauth: '/mcp/oauth' },
    transport: 'streamable_http',
    auth_modes: options.authModes,
    secret_inputs: options.secretInputs,
    tool_count: TOOL_LIST.length,
    tools: TOOL_LIST.map((tool) => tool.name),
  };
}

/** The MCP facade: the router for /mcp. */
export function createMcpFacade(deps: McpFacadeDeps) {
  return mcpRouter(deps);
}
