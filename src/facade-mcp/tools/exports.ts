import { z } from 'zod';
import { EXPORT_PARTS, EXPORT_STATUSES, EXPORTABLE_STATUSES } from '../../domain/exports/entities.js';
import { catalog, runEntry, type Graph, type ResultOf } from '../../graph/catalog/index.js';
import { humanStep, nextAction, READ, tool, WRITE, type ToolDefinition } from '../tool.js';
import type { ResourceLink } from '../views.js';

const { exports } = catalog;

const exportView = z.object({
  id: z.string(),
  team_id: z.string().nullable(),
  status: z.enum(EXPORT_STATUSES),
  include: z.array(z.enum(EXPORT_PARTS)),
  total: z.number().int(),
  processed: z.number().int(),
  created_at: z.string(),
  ready_at: z.string().nullable(),
  expires_at: z.string().nullable(),
});

type View = ResultOf<typeof exports.get>;

const asOutput = (view: View) => ({
  id: view.id,
  team_id: view.teamId ?? null,
  status: view.status,
  include: view.include,
  total: view.total,
  processed: view.processed,
  created_at: String(view.createdAt),
  ready_at: view.readyAt ? String(view.readyAt) : null,
  expires_at: view.expiresAt ? String(view.expiresAt) : null,
});

/** A single-use link to a ready export's ZIP, as a resource link. */
async function zipLink(graph: Graph, id: string): Promise<{ url: string; expiresAt: string; links: ResourceLink[] }> {
  const download = await runEntry(graph, exports.issueDownload, { id });
  return {
    url: download.url,
    expiresAt: String(download.expiresAt),
    links: [{ type: 'resource_link', uri: download.url, name: `export-${id}.zip`, title: 'The export ZIP', description: `The sealed records' files and manifest.csv; the link opens once, until ${String(download.expiresAt)}.`, mimeType: 'application/zip' }],
  };
}

/** Bulk exports of sealed records: ask for one, then follow it until its ZIP can be downloaded. */
export const exportTools: ToolDefinition[] = [
  tool({
    name: 'export_records',
    title: 'Export sealed records',
    description:
      "Asks for a ZIP of sealed records: each one's sealed PDF, audit trail and sealed metadata, with a manifest.csv (references, hashes, anchor transactions). Without `team_id`: the human's own records and those they take part in; with a team's id (from `list_teams`, member role): the team's. " +
      '`status` (sealed or superseded), `from` and `to` (ISO 8601, on the sealing time) narrow it. A job prepares it: follow it with `get_export`, which gives the download link once it is ready. Needs the `retrieve` scope.',
    input: z.strictObject({
      status: z.enum(EXPORTABLE_STATUSES).optional().describe('Only records in this status (default: every sealed record)'),
      from: z.iso.datetime({ offset: true }).optional().describe('Only records sealed at or after this time'),
      to: z.iso.datetime({ offset: true }).optional().describe('Only records sealed at or before this time'),
      team_id: z.uuid().optional().describe("A team's records instead of the human's own"),
      include: z.array(z.enum(EXPORT_PARTS)).min(1).optional().describe('What of each record (default: all three)'),
    }),
    output: z.object({ export: exportView, next_action: nextAction, human_step: humanStep }),
    annotations: WRITE,
    operations: [exports.create],
    run: async (args, { graph }) => {
      const created = await runEntry(graph, exports.create, {
        input: { status: args.status ?? null, from: args.from ?? null, to: args.to ?? null, teamId: args.team_id ?? null, include: args.include ?? null },
      });
      return {
        structured: {
          export: asOutput(created),
          next_action: { tool: 'get_export', arguments: { id: created.id }, description: `Its progress (${created.total} records), and the download link once it is ready.` },
          human_step: null,
        },
      };
    },
  }),
  tool({
    name: 'get_export',
    title: 'Follow an export',
    description:
      'An export asked for with `export_records`: its status and progress (`processed` of `total`), and once it is `ready` a single-use link to its ZIP (it opens once, for a few minutes; call again for another). Needs the `retrieve` scope.',
    input: z.strictObject({ id: z.uuid().describe('The export, as `export_records` gave it') }),
    output: z.object({ export: exportView, download_url: z.string().nullable(), download_expires_at: z.string().nullable(), next_action: nextAction, human_step: humanStep }),
    annotations: READ,
    operations: [exports.get, exports.issueDownload],
    run: async (args, { graph }) => {
      const view = await runEntry(graph, exports.get, { id: args.id });
      const ready = view.status === 'ready' ? await zipLink(graph, view.id) : null;
      const running = view.status === 'queued' || view.status === 'running';
      return {
        structured: {
          export: asOutput(view),
          download_url: ready?.url ?? null,
          download_expires_at: ready?.expiresAt ?? null,
          next_action: running ? { tool: 'get_export', arguments: { id: view.id }, description: 'Ask again in a few seconds: it is being prepared.' } : null,
          human_step: ready ? 'Open the download link (it works once); `record-verify --manifest manifest.csv` verifies every PDF of the ZIP offline.' : null,
        },
        ...(ready ? { links: ready.links } : {}),
      };
    },
  }),
];
