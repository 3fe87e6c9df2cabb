/**
 * The operation catalog: every operation a facade may execute, per capability, independent of the
 * transport. A REST route runs an entry (facade-rest/routes); an MCP tool binds
 * a tool name and a zod schema to the same entry. The .graphql documents beside this file are the
 * only GraphQL the facades send; `npm run codegen` types them into generated.ts and derives an entry
 * from each document marked `# catalog: <domain operation>` into entries.ts (custom.ts: the rest).
 */
import type { AnyCatalogEntry } from './entry.js';
import * as derived from './entries.js';
import { notarizationEntries, recordEntries } from './custom.js';

export const catalog = {
  ...derived,
  records: { ...recordEntries, ...derived.records },
  notarizations: { ...derived.notarizations, ...notarizationEntries },
};

export type { AnyCatalogEntry, Graph, InputOf, ResultOf } from './entry.js';
export { runEntry } from './entry.js';

/** Every entry of the catalog, by name. */
export function catalogEntries(): AnyCatalogEntry[] {
  return Object.values(catalog).flatMap((capability) => Object.values(capability as Record<string, AnyCatalogEntry>));
}
