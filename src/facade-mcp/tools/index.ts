import type { ToolDefinition } from '../tool.js';
import { lifecycleTools } from './lifecycle.js';
import { authenticationTools } from './authentication.js';
import { ceremonyTools } from './ceremony.js';
import { recordTools } from './records.js';
import { templateTools } from './templates.js';
import { bulkSendTools } from './bulk-sends.js';
import { exportTools } from './exports.js';

/**
 * The discovery catalogue, shared by /mcp and /mcp/oauth: 21 tools plus seven guarded actions
 * (a preview and an execute tool each). Each binds a name and zod schemas to catalog operations.
 */
export const TOOLS: readonly ToolDefinition[] = [...authenticationTools, ...recordTools, ...templateTools, ...bulkSendTools, ...exportTools, ...ceremonyTools, ...lifecycleTools];

const names = TOOLS.map((tool) => tool.name);
if (new Set(names).size !== names.length) throw new Error(`MCP tool names repeat: ${names.join(', ')}`);
