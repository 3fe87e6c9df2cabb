/** Templates, drafts made from them, and their schemas. */
import { catalog } from '../../graph/catalog/index.js';
import type { CreateTemplateInput, NamedPartyInput } from '../../graph/catalog/generated.js';
import { BODY_LIMITS, LIMITS } from '../../domain/text-rules.js';
import { SIGNING_ORDERS } from '../../domain/vocabulary.js';
import { TEMPLATE_NAME_MAX, TEMPLATES_PER_OWNER } from '../../domain/templates/template-service.js';
import { FIELD_LABEL_MAX, FIELD_VALUE_MAX, TEMPLATE_FIELDS_MAX } from '../../domain/templates/template-text.js';
import { arrayOf, bool, dateTime, enumOf, int, nullable, obj, ref, str, uuid, type JsonObject, type Schema } from '../openapi/helpers.js';
import { API, body, json, queryParam } from '../openapi/operation.js';
import { requiredMethodCount } from '../openapi/request-schemas.js';
import { bind, route, type RestRoute } from '../operation.js';
import { param } from './params.js';

const { templates } = catalog;
const template = param('template_id');

const templateId = (): JsonObject => ({ name: 'template_id', in: 'path', required: true, description: 'Template identifier.', schema: { type: 'string', format: 'uuid' } });

export const TEMPLATES_TAG: [string, string] = [
  'Templates',
  'Record texts with `{{field}}` placeholders, the party roles to fill and the record\'s defaults, owned by a person or a team; a draft made from one remembers the template and its version.',
];

export function templateRoutes(): RestRoute[] {
  const tags = [TEMPLATES_TAG[0]];
  return [
    route('get', `${API}/templates`, {
      id: 'listTemplates',
      summary: 'List templates',
      tags,
      description: "The caller's templates, or with `team_id` a team's (any role in it).",
      params: [queryParam('team_id', uuid(), "A team's templates instead of the caller's own.")],
      ok: json('TemplateListResponse', 200, 'The templates.'),
      errors: [401, 403, 404, 429],
      runs: bind(templates.list, { issueLocation: 'query', input: (r) => ({ teamId: (r.query.team_id as string | undefined) ?? null }), body: (list) => ({ templates: list }) }),
    }),
    route('post', `${API}/templates`, {
      id: 'createTemplate',
      summary: 'Create a template',
      tags,
      description:
        'Every `{{placeholder}}` of `title` and `body` must be declared in `fields` and every field used; `parties` name the roles a person fills when using it. ' +
        "With `team_id` the team owns it (the member role needed).",
      body: body('CreateTemplateRequest'),
      ok: json('TemplateSchema', 201, 'The template.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(templates.create, { input: ({ input }) => ({ input: input as unknown as CreateTemplateInput }) }),
    }),
    route('get', `${API}/templates/{template_id}`, {
      id: 'getTemplate',
      summary: 'Get a template',
      tags,
      params: [templateId()],
      ok: json('TemplateSchema', 200, 'The template.'),
      errors: [401, 403, 404, 429],
      runs: bind(templates.get, { issueLocation: 'path', input: (r) => ({ id: template(r) }) }),
    }),
    route('patch', `${API}/templates/{template_id}`, {
      id: 'updateTemplate',
      summary: 'Change a template',
      tags,
      description: 'Only the given parts change, checked as at creation; the template gets a new `version`. Records made from earlier versions never change.',
      params: [templateId()],
      body: body('UpdateTemplateRequest'),
      ok: json('TemplateSchema', 200, 'The template.'),
      errors: [401, 403, 404, 429],
      runs: bind(templates.update, { input: (r) => ({ id: template(r), input: r.input }) }),
    }),
    route('delete', `${API}/templates/{template_id}`, {
      id: 'deleteTemplate',
      summary: 'Delete a template',
      tags,
      description: 'Records made from it keep its id and version.',
      params: [templateId()],
      ok: { status: 204, description: 'Deleted.' },
      errors: [401, 403, 404, 429],
      runs: bind(templates.delete, { issueLocation: 'path', input: (r) => ({ id: template(r) }) }),
    }),
    route('post', `${API}/templates/{template_id}/records`, {
      id: 'createRecordFromTemplate',
      summary: 'Make a draft from a template',
      tags,
      description:
        "Fills every placeholder with `values` and each party role with `parties` (one per role, in the template's order), then creates the draft exactly as `POST /agreements` would: " +
        'the text rules and limits apply to the filled text. An unknown or missing value is a 422 naming `values.<field>`. A team\'s template makes the team\'s record.',
      params: [templateId()],
      body: body('UseTemplateRequest'),
      ok: json('ExternalAgreementResponse', 201, 'The draft record.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(templates.createRecord, {
        input: (r) => ({
          id: template(r),
          input: {
            // Field names are the author's own (snake_case or not): taken from the body as sent, never re-cased.
            values: ((r.body as { values?: Record<string, unknown> } | null)?.values ?? null),
            parties: (r.input.parties as NamedPartyInput[] | undefined) ?? null,
          },
        }),
      }),
    }),
  ];
}

export function templateSchemas(): Record<string, Schema> {
  const field = obj(
    {
      name: str({ pattern: '^[a-z][a-z0-9_]{0,39}$', description: 'Used as `{{name}}` in the title or body.' }),
      label: str({ minLength: 1, maxLength: FIELD_LABEL_MAX }),
      required: bool({ default: true }),
      max_length: nullable(int({ minimum: 1, maximum: FIELD_VALUE_MAX })),
    },
    ['name', 'label'],
  );
  const party = obj({ label: str({ minLength: 1, maxLength: LIMITS.displayName }), role: enumOf(['party', 'witness'], { default: 'party' }) }, ['label']);
  const defaults = obj(
    {
      required_signature_method_count: requiredMethodCount(),
      lapse_days: nullable(int({ minimum: LIMITS.lapseDays.min, maximum: LIMITS.lapseDays.max })),
      on_chain_full_text: bool({ default: false }),
      on_chain_include_verified_parties: bool({ default: false }),
      signing_order: enumOf(SIGNING_ORDERS, { default: 'parallel' }),
    },
    [],
  );
  const content = {
    name: str({ minLength: 1, maxLength: TEMPLATE_NAME_MAX }),
    record_type: enumOf(['agreement', 'declaration', 'witnessed_agreement'], { default: 'agreement' }),
    title: nullable(str({ maxLength: LIMITS.title * 2 })),
    body: str({ minLength: 1, maxLength: BODY_LIMITS.maxRawCharacters, description: 'The text with `{{field}}` placeholders.' }),
    fields: arrayOf(field, { maxItems: TEMPLATE_FIELDS_MAX }),
    parties: arrayOf(party, { maxItems: LIMITS.parties + LIMITS.witnesses }),
    defaults,
  };
  return {
    TemplateSchema: obj(
      {
        id: uuid(),
        team_id: nullable(uuid({ description: 'The team that owns it (null: the caller\'s own).' })),
        ...content,
        fields: arrayOf(obj({ ...field.properties as Record<string, Schema> }, 'all'), { maxItems: TEMPLATE_FIELDS_MAX }),
        parties: arrayOf(obj({ ...party.properties as Record<string, Schema> }, 'all'), { maxItems: LIMITS.parties + LIMITS.witnesses }),
        defaults: obj({ ...defaults.properties as Record<string, Schema> }, 'all'),
        version: int({ minimum: 1 }),
        created_at: dateTime(),
        updated_at: dateTime(),
      },
      'all',
      { description: 'A template.' },
    ),
    TemplateListResponse: obj({ templates: arrayOf(ref('TemplateSchema'), { maxItems: TEMPLATES_PER_OWNER }) }, 'all'),
    CreateTemplateRequest: obj({ ...content, team_id: nullable(uuid()) }, ['name', 'body']),
    UpdateTemplateRequest: obj(content, []),
    UseTemplateRequest: obj(
      {
        values: { type: 'object', additionalProperties: { type: 'string', maxLength: FIELD_VALUE_MAX }, maxProperties: TEMPLATE_FIELDS_MAX, description: 'A value per field: `{"field_name": "text"}`.' },
        parties: arrayOf(ref('NamedPartyInput'), { maxItems: LIMITS.parties + LIMITS.witnesses, description: "One per party role, in the template's order." }),
      },
      [],
    ),
  };
}
