/**
 * The operation catalog: every operation a facade may execute, per capability, independent of the
 * transport. A REST route runs an entry (facade-rest/routes); an MCP tool binds
 * a tool name and a zod schema to the same entry. The .graphql documents beside this file are the
 * only GraphQL the facades send; `npm run codegen` types them into generated.ts.
 */
import { artifacts } from './artifacts.js';
import { ceremony } from './ceremony.js';
import type { AnyCatalogEntry } from './entry.js';
import { identity } from './identity.js';
import { lifecycle } from './lifecycle.js';
import { notarizations } from './notarizations.js';
import { records } from './records.js';
import { inbound } from './inbound.js';
import { verification } from './verification.js';
import { webhooks } from './webhooks.js';
import { teams } from './teams.js';
import { templates } from './templates.js';
import { bulkSends } from './bulk-sends.js';
import { exports } from './exports.js';

export const catalog = { records, ceremony, lifecycle, notarizations, verification, identity, artifacts, inbound, webhooks, teams, templates, bulkSends, exports };

export type { AnyCatalogEntry, Graph, InputOf, ResultOf } from './entry.js';
export { runEntry } from './entry.js';

/** Every entry of the catalog, by name. */
export function catalogEntries(): AnyCatalogEntry[] {
  return Object.values(catalog).flatMap((capability) => Object.values(capability as Record<string, AnyCatalogEntry>));
}
