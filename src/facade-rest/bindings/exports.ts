import { catalog, runEntry } from '../../graph/catalog/index.js';
import type { CreateExportInput, ExportPart } from '../../graph/catalog/generated.js';
import { snakeKeys } from '../../graph/transport/case.js';
import { bind, type RestOperation } from '../operation.js';
import { param } from './params.js';
import { CACHE_CONTROL } from '../../domain/shared/cache-policy.js';

const { exports } = catalog;
const exportId = param('export_id');

/** Bulk exports and their single-use download links (the ZIP itself: facade-rest/meta.ts `downloadExport`). */
export const exportRoutes: Record<string, RestOperation> = {
  createExport: bind(exports.create, {
    status: 202,
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
  listExports: bind(exports.list, { issueLocation: 'query', input: (r) => ({ teamId: (r.query.team_id as string | undefined) ?? null }), body: (list) => ({ exports: list }) }),
  issueExportDownload: bind(exports.issueDownload, { status: 201, issueLocation: 'path', secret: true, input: (r) => ({ id: exportId(r) }) }),
  // The export, and once it is ready a fresh single-use link to its ZIP (both through the catalog).
  getExport: {
    operation: exports.get,
    issueLocation: 'path',
    run: async (request, graph) => {
      const view = await runEntry(graph, exports.get, { id: exportId(request) });
      const download = view.status === 'ready' ? await runEntry(graph, exports.issueDownload, { id: view.id }) : null;
      return { status: 200, headers: { 'Cache-Control': CACHE_CONTROL.secret }, body: snakeKeys({ ...view, download }) };
    },
  },
};
