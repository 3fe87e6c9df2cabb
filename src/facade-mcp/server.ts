import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ICON_SIZE } from '../brand-icon.js';
import { scopeOf } from '../domain/identity/operation-access.js';
import type { Scope } from '../domain/identity/principal.js';
import { noInstruments, type Instruments } from '../domain/shared/instruments.js';
import { operationFailure } from '../graph/transport/failure.js';
import { ToolError, toolFailure, toolFailureSchema, type ToolFailure } from './errors.js';
import { asPng } from './png.js';
import { MORE_THAN_RETRIEVE, scopesNamed, type ToolContext, type ToolDefinition } from './tool.js';
import { TOOLS } from './tools/index.js';

const SERVER_INFO = { name: 'record-signing', title: 'Record Signing and Notarization', version: '1.0.0' };

const INSTRUCTIONS = [
  'Tools to create, sign, read and verify records (agreements, declarations, witnessed agreements) and to act on their lifecycle.',
  'Follow each answer\'s `next_action` (a tool and its arguments) and tell the human its `human_step`: the human stays responsible for the exact text, secret inputs, signatures and consequential confirmations.',
  'Public verification (verify_agreement) needs no credentials. Otherwise send an API key as `Authorization: Bearer`, or sign in with request_authentication_otp and verify_authentication_otp (retrieve only, 600 seconds).',
  'Guarded actions: call the preview_* tool, show the human what changes, then the execute tool with its confirmation_token and agreement_version.',
].join('\n');

/** A JSON Schema of a zod schema, without the `$schema` marker MCP does not use. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _marker, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

const failureJson = jsonSchema(toolFailureSchema, 'output');

/** tools/list, computed once: names, descriptions, input and output schemas, annotations. */
export const TOOL_LIST: Tool[] = TOOLS.map((definition) => ({
  name: definition.name,
  title: definition.title,
  description: definition.description,
  inputSchema: jsonSchema(definition.input, 'input') as Tool['inputSchema'],
  // A result is the tool's success structure or, with isError, the failure structure.
  outputSchema: { type: 'object', anyOf: [jsonSchema(definition.output, 'output'), failureJson] },
  annotations: { title: definition.title, ...definition.annotations },
}));

const BY_NAME = new Map(TOOLS.map((definition) => [definition.name, definition]));

/** API keys never travel in tool arguments: any string that looks like one refuses the call (never echoed). */
function carriesApiKey(value: unknown): boolean {
  if (typeof value === 'string') return /rss_key_/i.test(value);
  if (Array.isArray(value)) return value.some(carriesApiKey);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, item]) => /api[_-]?key/i.test(key) || carriesApiKey(item));
  return false;
}

function failed(failure: ToolFailure): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure) }], structuredContent: failure };
}

async function callTool(definition: ToolDefinition, raw: Record<string, unknown>, context: ToolContext, logger: Logger): Promise<CallToolResult> {
  if (carriesApiKey(raw)) {
    return failed({
      error_code: 'validation_error',
      message: 'API keys never go in tool arguments: send the key as the transport\'s `Authorization: Bearer` header',
      required_scopes: [],
      retry_after_seconds: null,
      retry_action: null,
    });
  }
  const parsed = definition.input.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))), message: issue.message, type: issue.code }));
    return failed({
      error_code: 'validation_error',
      message: `Invalid arguments: ${issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ')}`,
      required_scopes: [],
      retry_after_seconds: null,
      retry_action: null,
      issues,
    });
  }
  try {
    const output = await definition.run(parsed.data, context);
    return {
      content: [{ type: 'text', text: JSON.stringify(output.structured) }, ...(await asPng(output.images ?? [])), ...(output.links ?? [])],
      structuredContent: output.structured,
    };
  } catch (error) {
    // A protocol answer, not a tool result: URL-mode elicitation required (-32042), which the client acts on.
    if (error instanceof McpError) throw error;
    if (error instanceof ToolError) return failed(guided(definition, { ...error.failure, retry_action: error.failure.retry_action ?? definition.recovery?.(error.failure.error_code, parsed.data) ?? null }));
    const failure = operationFailure(error);
    if (!failure) logger.error({ err: error, tool: definition.name }, 'MCP tool failed');
    const args = parsed.data;
    return failed(guided(definition, toolFailure(failure ?? { code: 'internal_error', message: 'Internal server error', issues: [] }, (code) => definition.recovery?.(code, args) ?? defaultRecovery(code, args))));
  }
}

/**
 * The scopes a tools/call needs, known before it runs (null: an unknown tool or invalid arguments,
 * which the call itself answers): the transport of OAuth connectors asks for the missing ones.
 */
export function scopesNeeded(name: string, args: unknown): Scope[] | null {
  const definition = BY_NAME.get(name);
  const parsed = definition?.input.safeParse(args ?? {});
  if (!definition || !parsed?.success) return null;
  return definition.scopesFor?.(parsed.data) ?? SCOPES.get(name) ?? [];
}

/** The scopes a tool's operations are declared with (operation-access.ts). */
const SCOPES = new Map(TOOLS.map((definition) => [definition.name, [...new Set(definition.operations.map((entry) => scopeOf(entry.name)).filter((scope): scope is Scope => scope !== null))]]));

/**
 * An unauthenticated call names the scopes the tool needs and a way to get them: a sign-in code
 * grants `retrieve` only, so a tool that needs more is pointed at the credentials that carry it (an
 * API key with those scopes, or the OAuth connector), not at a code that would not be enough.
 */
function guided(definition: ToolDefinition, failure: ToolFailure): ToolFailure {
  if (failure.error_code !== 'auth_required') return failure;
  const scopes = failure.required_scopes.length > 0 ? failure.required_scopes : (SCOPES.get(definition.name) ?? []);
  if (scopes.every((scope) => scope === 'retrieve')) return { ...failure, required_scopes: scopes, retry_action: failure.retry_action ?? SIGN_IN };
  return {
    ...failure,
    required_scopes: scopes,
    message: `${failure.message}: ${definition.name} needs ${scopesNamed(scopes)}. ${MORE_THAN_RETRIEVE}`,
    retry_action: { tool: 'get_authentication_status', arguments: {} },
  };
}

const SIGN_IN = { tool: 'request_authentication_otp', arguments: { email: '<the human\'s email address>' } };

/** What recovers from a code when the tool says nothing more specific. */
function defaultRecovery(code: string, args: Record<string, unknown>) {
  if (code === 'auth_required') return SIGN_IN;
  if (code === 'conflict' && typeof args.agr_reference === 'string') return { tool: 'get_agreement', arguments: { agr_reference: args.agr_reference } };
  return null;
}

/** tools/list with the icon hosts show beside each tool (by URL: the list is sent often). */
const withIcons = new Map<string, Tool[]>();
function toolsWithIcon(iconUrl: string): Tool[] {
  let tools = withIcons.get(iconUrl);
  if (!tools) withIcons.set(iconUrl, (tools = TOOL_LIST.map((tool) => ({ ...tool, icons: iconsAt(iconUrl) }))));
  return tools;
}

const iconsAt = (iconUrl: string) => [{ src: iconUrl, mimeType: 'image/png', sizes: [ICON_SIZE] }];

/** One MCP server for one HTTP request: the tool catalogue, run with that request's context; each call counted by tool and outcome. */
export function buildMcpServer(context: ToolContext, logger: Logger, iconUrl: string, instruments: Instruments = noInstruments): Server {
  const server = new Server({ ...SERVER_INFO, icons: iconsAt(iconUrl) }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  const tools = toolsWithIcon(iconUrl);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const definition = BY_NAME.get(request.params.name);
    if (!definition) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name.slice(0, 100)}`);
    const result = await callTool(definition, request.params.arguments ?? {}, context, logger);
    instruments.mcpToolCall(definition.name, result.isError ? String((result.structuredContent as ToolFailure | undefined)?.error_code ?? 'internal_error') : 'ok');
    return result;
  });
  return server;
}
