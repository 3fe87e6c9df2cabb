/**
 * Bulk exports, their single-use download links, and their schemas. The ZIP itself is streamed by
 * the composition root's `exportZip` (RestServices): GraphQL answers whole values.
 */
import { catalog, runEntry } from '../../graph/catalog/index.js';
import type { CreateExportInput, ExportPart } from '../../graph/catalog/generated.js';
import { snakeKeys } from '../../graph/transport/case.js';
import { EXPORT_PARTS, EXPORT_STATUSES, EXPORTABLE_STATUSES } from '../../domain/exports/entities.js';
import { MANIFEST_COLUMNS } from '../../domain/exports/export-service.js';
import { CACHE_CONTROL } from '../../domain/shared/cache-policy.js';
import { arrayOf, dateTime, enumOf, int, nullable, obj, ref, str, uuid, type JsonObject, type Schema } from '../openapi/helpers.js';
import { API, binary, body, json, queryParam, singleUseHeaders, ticketToken } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { param } from './params.js';

const { exports } = catalog;
const exportOf = param('export_id');

const exportId = (): JsonObject => ({ name: 'export_id', in: 'path', required: true, description: 'Export identifier.', schema: { type: 'string', format: 'uuid' } });

export const EXPORTS_TAG: [string, string] = [
  'Exports',
  'Bulk exports of sealed records: a ZIP of their sealed PDFs, audit trails and sealed metadata with a `manifest.csv`, prepared by a job and downloaded by single-use links.',
];

export function exportRoutes(): RestRoute[] {
  const tags = [EXPORTS_TAG[0]];
  return [
    route('post', `${API}/exports`, {
      id: 'createExport',
      summary: 'Export sealed records',
      tags,
      description:
        'Chooses the records now, by the read rule: without `team_id` the caller\'s own records and those it takes part in; with `team_id` (or for a team\'s key) the team\'s records, for its members. ' +
        `Only sealed records (status ${EXPORTABLE_STATUSES.join(' or ')}), optionally of one status and sealed between \`from\` and \`to\`. A job prepares the export; ` +
        '`GET /exports/{export_id}` shows its progress, and once it is ready a single-use download link.',
      body: body('CreateExportRequest'),
      ok: json('ExportSchema', 202, 'The export, queued.'),
      errors: [401, 403, 404, 429],
      runs: bind(exports.create, {
        input: ({ input }) => ({
          input: {
            status: (input.status as string | undefined) ?? null,
            from: (input.from as string | undefined) ?? null,
            to: (input.to as string | undefined) ?? null,
            teamId: (input.teamId as string | undefined) ?? null,
            include: (input.include as ExportPart[] | undefined) ?? null,
          } satisfies CreateExportInput,
        }),
      }),
    }),
    route('get', `${API}/exports`, {
      id: 'listExports',
      summary: 'List exports',
      tags,
      description: "The caller's exports, or with `team_id` a team's (its member role), newest first.",
      params: [queryParam('team_id', uuid(), "A team's exports instead of the caller's own.")],
      ok: json('ExportListResponse', 200, 'The exports.'),
      errors: [401, 403, 404, 429],
      runs: bind(exports.list, { issueLocation: 'query', input: (r) => ({ teamId: (r.query.team_id as string | undefined) ?? null }), body: (list) => ({ exports: list }) }),
    }),
    route('get', `${API}/exports/{export_id}`, {
      id: 'getExport',
      summary: 'Get an export',
      tags,
      description: 'The export and its progress; once it is ready, `download` carries a fresh single-use link to its ZIP (good once, for a few minutes, and never past the export\'s `expires_at`).',
      params: [exportId()],
      ok: json('ExportSchema', 200, 'The export.'),
      errors: [401, 403, 404, 429],
      runs: {
        operation: exports.get,
        issueLocation: 'path',
        // The export, and once it is ready a fresh single-use link to its ZIP (both through the catalog).
        run: async (request, graph) => {
          const view = await runEntry(graph, exports.get, { id: exportOf(request) });
          const download = view.status === 'ready' ? await runEntry(graph, exports.issueDownload, { id: view.id }) : null;
          return { status: 200, headers: { 'Cache-Control': CACHE_CONTROL.secret }, body: snakeKeys({ ...view, download }) };
        },
      },
    }),
    route('post', `${API}/exports/{export_id}/download-links`, {
      id: 'issueExportDownload',
      summary: "Issue a link to an export's ZIP",
      tags,
      description: 'A single-use link to the ZIP of a ready export (409 before it is ready).',
      params: [exportId()],
      ok: json('ExportDownload', 201, 'The link.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(exports.issueDownload, { issueLocation: 'path', secret: true, input: (r) => ({ id: exportOf(r) }) }),
    }),
    route('get', `${API}/export-downloads/{token}`, {
      id: 'downloadExport',
      summary: "Download an export's ZIP",
      tags,
      description:
        'Streams the ZIP and redeems the single-use link atomically: for each record `<reference>/<reference>.pdf`, `<reference>/audit-trail.json` and `<reference>/sealed-metadata.json` ' +
        `(as asked), then \`manifest.csv\` (${MANIFEST_COLUMNS.join(', ')}). \`record-verify --manifest manifest.csv\` verifies every PDF offline. Unknown, used and expired links answer 404.`,
      params: [ticketToken()],
      ok: binary('application/zip', 'The ZIP.', singleUseHeaders('The link')),
      errors: [404, 429],
      runs: {
        operation: null,
        issueLocation: 'path',
        run: async (request, _graph, { services }) => {
          const zip = await services.exportZip(request.params.token ?? '');
          return {
            status: 200,
            stream: zip.write,
            headers: {
              'Content-Type': 'application/zip',
              'Content-Disposition': `attachment; filename="${zip.filename}"`,
              'Cache-Control': CACHE_CONTROL.secret,
              'Referrer-Policy': 'no-referrer',
            },
          };
        },
      },
    }),
  ];
}

export function exportSchemas(): Record<string, Schema> {
  const download = obj({ url: str({ format: 'uri', description: 'Single-use: the link is the proof, no credentials.' }), expires_at: dateTime() }, 'all', { description: "A single-use link to an export's ZIP." });
  return {
    ExportDownload: download,
    ExportSchema: obj(
      {
        id: uuid(),
        team_id: nullable(uuid({ description: "The team whose records it holds (null: the caller's own)." })),
        status: enumOf(EXPORT_STATUSES),
        include: arrayOf(enumOf(EXPORT_PARTS), { maxItems: EXPORT_PARTS.length }),
        total: int({ minimum: 0, description: 'How many records it holds.' }),
        processed: int({ minimum: 0, description: 'How many of them are prepared.' }),
        created_at: dateTime(),
        ready_at: nullable(dateTime()),
        expires_at: nullable(dateTime({ description: 'Once ready: when it can no longer be downloaded.' })),
        download: nullable(ref('ExportDownload'), { description: 'Only on `GET /exports/{export_id}` of a ready export: a fresh single-use link.' }),
      },
      ['id', 'team_id', 'status', 'include', 'total', 'processed', 'created_at', 'ready_at', 'expires_at'],
      { description: 'A bulk export of sealed records.' },
    ),
    ExportListResponse: obj({ exports: arrayOf(ref('ExportSchema'), { maxItems: 100 }) }, 'all'),
    CreateExportRequest: obj(
      {
        status: nullable(enumOf(EXPORTABLE_STATUSES, { description: 'Only records in this status (default: every sealed record).' })),
        from: nullable(dateTime({ description: 'Only records sealed at or after this time.' })),
        to: nullable(dateTime({ description: 'Only records sealed at or before this time.' })),
        team_id: nullable(uuid({ description: "A team's records (its member role)." })),
        include: arrayOf(enumOf(EXPORT_PARTS), { minItems: 1, maxItems: EXPORT_PARTS.length, uniqueItems: true, description: 'What of each record the ZIP holds (default: all).' }),
      },
      [],
    ),
  };
}
