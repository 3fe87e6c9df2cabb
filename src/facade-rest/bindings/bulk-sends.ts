import { catalog } from '../../graph/catalog/index.js';
import type { BulkSendFieldsFragment, BulkSendRowInput, NamedPartyInput } from '../../graph/catalog/generated.js';
import { issueItem } from '../errors.js';
import { bind, type RestOperation } from '../operation.js';
import { param } from './params.js';

const { bulkSends } = catalog;

/** A failed row's issues as the 422 of a single create names them (`loc` from `body`, snake_case fields). */
const answer = (bulk: BulkSendFieldsFragment) => ({
  ...bulk,
  failures: bulk.failures.map((failure) => ({
    ...failure,
    issues: failure.issues.map((issue) => issueItem({ path: issue.path.map((part) => (/^\d+$/.test(part) ? Number(part) : part)), message: issue.message, type: issue.code }, 'body')),
  })),
});

/** Bulk sends from a template: a CSV file (`text/csv`) or JSON rows. */
export const bulkSendRoutes: Record<string, RestOperation> = {
  startBulkSend: bind(bulkSends.start, {
    status: 202,
    input: (r) => {
      if (r.text !== undefined) return { templateId: param('template_id')(r), input: { csv: r.text, submit: r.query.submit === true } };
      const sent = (r.body as { rows?: { values?: Record<string, unknown> }[] } | null)?.rows;
      const rows = (r.input.rows as { parties?: NamedPartyInput[] }[] | undefined)?.map(
        // Field names are the author's own (snake_case or not): taken from the body as sent, never re-cased.
        (row, index): BulkSendRowInput => ({ values: sent?.[index]?.values ?? null, parties: row.parties ?? null }),
      );
      return { templateId: param('template_id')(r), input: { rows: rows ?? null, submit: r.input.submit === true } };
    },
    body: answer,
  }),
  getBulkSend: bind(bulkSends.get, { issueLocation: 'path', input: (r) => ({ id: param('bulk_send_id')(r) }), body: answer }),
  listBulkSends: bind(bulkSends.list, { issueLocation: 'query', input: (r) => ({ teamId: (r.query.team_id as string | undefined) ?? null }), body: (list) => ({ bulkSends: list.map(answer) }) }),
};
