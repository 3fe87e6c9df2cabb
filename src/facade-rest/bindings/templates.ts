import { catalog } from '../../graph/catalog/index.js';
import type { CreateTemplateInput, NamedPartyInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation } from '../operation.js';
import { param } from './params.js';

const { templates } = catalog;
const templateId = param('template_id');

/** Templates, and drafts made from them. */
export const templateRoutes: Record<string, RestOperation> = {
  listTemplates: bind(templates.list, { issueLocation: 'query', input: (r) => ({ teamId: (r.query.team_id as string | undefined) ?? null }), body: (list) => ({ templates: list }) }),
  createTemplate: bind(templates.create, { status: 201, input: ({ input }) => ({ input: input as unknown as CreateTemplateInput }) }),
  getTemplate: bind(templates.get, { issueLocation: 'path', input: (r) => ({ id: templateId(r) }) }),
  updateTemplate: bind(templates.update, { input: (r) => ({ id: templateId(r), input: r.input }) }),
  deleteTemplate: bind(templates.delete, { status: 204, issueLocation: 'path', input: (r) => ({ id: templateId(r) }) }),
  createRecordFromTemplate: bind(templates.createRecord, {
    status: 201,
    input: (r) => ({
      id: templateId(r),
      input: {
        // Field names are the author's own (snake_case or not): taken from the body as sent, never re-cased.
        values: ((r.body as { values?: Record<string, unknown> } | null)?.values ?? null),
        parties: (r.input.parties as NamedPartyInput[] | undefined) ?? null,
      },
    }),
  }),
};
