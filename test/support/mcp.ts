import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export type McpClient = {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Calls a tool; answers its structuredContent and whether it failed. */
  call: (name: string, args?: Record<string, unknown>) => Promise<{ isError: boolean; structured: any; result: CallToolResult }>;
  close: () => Promise<void>;
};

/**
 * The MCP SDK's own client over real HTTP to /mcp, optionally with a transport bearer (API key or MCP
 * token) and client capabilities (e.g. URL-mode elicitation: `{ elicitation: { url: {} } }`).
 */
export async function connectMcp(baseUrl: string, options: { bearer?: string; sessionId?: string; capabilities?: ClientCapabilities } = {}): Promise<McpClient> {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: options.bearer ? { headers: { Authorization: `Bearer ${options.bearer}` } } : undefined,
    sessionId: options.sessionId,
  });
  const client = new Client({ name: 'record-signing-tests', version: '1.0.0' }, { capabilities: options.capabilities ?? {} });
  await client.connect(transport);
  return {
    client,
    transport,
    call: async (name, args = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      return { isError: result.isError === true, structured: result.structuredContent, result };
    },
    close: () => client.close(),
  };
}

/** A raw JSON-RPC POST to /mcp (for what the SDK client would never send). */
export async function postMcp(baseUrl: string, message: unknown, headers: Record<string, string> = {}, path: '/mcp' | '/mcp/oauth' = '/mcp'): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
  const response = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(message),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: () => {
      // SSE: the JSON-RPC message is the `data:` of the `message` event (a priming event's data is empty).
      if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        const data = text.split('\n').find((line) => line.startsWith('data: ') && line.trim() !== 'data:');
        return data ? JSON.parse(data.slice(6)) : null;
      }
      return text ? JSON.parse(text) : null;
    },
  };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } },
};
