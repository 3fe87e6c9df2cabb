/** Bulk sends from a template (a CSV file or JSON rows), and their schemas. */
import { catalog } from '../../graph/catalog/index.js';
import type { BulkSendFieldsFragment, BulkSendRowInput, NamedPartyInput } from '../../graph/catalog/generated.js';
import { LIMITS } from '../../domain/text-rules.js';
import { BULK_SEND_STATUSES } from '../../domain/bulk-sends/entities.js';
import { BULK_SEND_LIMITS } from '../../domain/bulk-sends/bulk-send-input.js';
import { BULK_SENDS_LISTED } from '../../domain/bulk-sends/bulk-send-service.js';
import { FIELD_VALUE_MAX, TEMPLATE_FIELDS_MAX } from '../../domain/templates/template-text.js';
import { issueItem } from '../errors.js';
import { arrayOf, bool, dateTime, enumOf, int, nullable, obj, ref, str, uuid, type JsonObject, type Schema } from '../openapi/helpers.js';
import { API, json, queryParam } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
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

export const BULK_SENDS_TAG: [string, string] = [
  'Bulk sends',
  'Many records from one template at once: a CSV file or JSON rows, every row checked at the request as a single create from the template would check it, the records made by a job exactly once per row (even across an interrupted and resumed run), with progress and the failed rows\' issues.',
];

const pathParam = (name: string, description: string): JsonObject => ({ name, in: 'path', required: true, description, schema: { type: 'string', format: 'uuid' } });

const CSV_DESCRIPTION =
  `A CSV file (UTF-8, at most ${BULK_SEND_LIMITS.csvBytes / 1024} KiB, 1 to ${BULK_SEND_LIMITS.rows} rows after a header row). Columns: one per template field, named as the field ` +
  "(required fields must have a column; an empty cell is an empty value), and for each party role i (1-based, in the template's order) `party_<i>_name`, `party_<i>_contact` " +
  'and optionally `party_<i>_contact_type` (`email`, the default, or `messenger`). An unknown or missing column, or a file that is not CSV, refuses the whole request (422 naming `csv`).';

export function bulkSendRoutes(): RestRoute[] {
  const tags = [BULK_SENDS_TAG[0]];
  return [
    route('post', `${API}/templates/{template_id}/bulk`, {
      id: 'startBulkSend',
      summary: 'Bulk send from a template',
      tags,
      description:
        `Makes one record per row from the template: a CSV file (\`text/csv\`) or JSON rows, 1 to ${BULK_SEND_LIMITS.rows}. Every row is checked now, exactly as ` +
        '`POST /templates/{template_id}/records` would check it: rows it would refuse are reported failed with the same issues, and the others are made by a job, ' +
        'each exactly once. A malformed file refuses the whole request and stores nothing. `submit: true` (for CSV the `submit` query parameter) also signs each draft ' +
        "with the API key (the `api_key` method) and submits it: only a person's API key with the `create` and `verify` scopes, and a template needing one signature method; " +
        'bearer and OAuth sessions cannot create signature evidence (422 naming `submit`). Someone else\'s template is 404; a team\'s needs the member role.',
      params: [
        { name: 'template_id', in: 'path', required: true, description: 'Template identifier.', schema: { type: 'string', format: 'uuid' } },
        queryParam('submit', { type: 'boolean', default: false }, 'With a CSV body: sign each draft with the API key and submit it (a JSON body says `submit` itself).'),
      ],
      body: {
        required: false,
        content: {
          'application/json': { schema: ref('BulkSendRequest') },
          'text/csv': { schema: str({ maxLength: BULK_SEND_LIMITS.csvBytes, description: CSV_DESCRIPTION }) },
        },
      },
      ok: json('BulkSendSchema', 202, 'Accepted: the bulk send, its refused rows already reported; `GET /bulk-sends/{bulk_send_id}` follows it.'),
      errors: [401, 403, 404, 429],
      runs: bind(bulkSends.start, {
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
    }),
    route('get', `${API}/bulk-sends`, {
      id: 'listBulkSends',
      summary: 'List bulk sends',
      tags,
      description: `The caller's own bulk sends, or with \`team_id\` a team's (any role in it), newest first, at most ${BULK_SENDS_LISTED}.`,
      params: [queryParam('team_id', uuid(), "A team's bulk sends instead of the caller's own.")],
      ok: json('BulkSendListResponse', 200, 'The bulk sends.'),
      errors: [401, 403, 404, 429],
      runs: bind(bulkSends.list, { issueLocation: 'query', input: (r) => ({ teamId: (r.query.team_id as string | undefined) ?? null }), body: (list) => ({ bulkSends: list.map(answer) }) }),
    }),
    route('get', `${API}/bulk-sends/{bulk_send_id}`, {
      id: 'getBulkSend',
      summary: 'Get a bulk send',
      tags,
      description: "Its status, counts and every failed row with its issues. Only its creator (or, for a team's, the team's members) may read it.",
      params: [pathParam('bulk_send_id', 'Bulk send identifier.')],
      ok: json('BulkSendSchema', 200, 'The bulk send.'),
      errors: [401, 403, 404, 429],
      runs: bind(bulkSends.get, { issueLocation: 'path', input: (r) => ({ id: param('bulk_send_id')(r) }), body: answer }),
    }),
  ];
}

export function bulkSendSchemas(): Record<string, Schema> {
  const count = (description: string) => int({ minimum: 0, maximum: BULK_SEND_LIMITS.rows, description });
  return {
    BulkSendSchema: obj(
      {
        id: uuid(),
        template_id: uuid(),
        template_version: int({ minimum: 1, description: 'Every record is made from this version, whatever happens to the template meanwhile.' }),
        team_id: nullable(uuid({ description: "The team whose template it is (its records are the team's); null: the caller's own." })),
        status: enumOf(BULK_SEND_STATUSES, { description: 'queued, running, then completed once every row is done.' }),
        submit: bool({ description: 'Each draft is signed with the API key and submitted.' }),
        total: count('Rows given.'),
        processed: count('Rows done: created plus failed.'),
        created: count('Records made (submitted ones included).'),
        submitted: count('Records submitted.'),
        failed: count('Rows that made no record.'),
        failures: arrayOf(
          obj(
            {
              row: int({ minimum: 1, maximum: BULK_SEND_LIMITS.rows, description: 'The data row number as in the file (1 = the first row after the header).' }),
              record_id: nullable(uuid()),
              issues: arrayOf(ref('ValidationError'), { maxItems: 200, description: 'The 422 issues a single create from the template gives for this row.' }),
            },
            'all',
          ),
          { maxItems: BULK_SEND_LIMITS.rows },
        ),
        created_at: dateTime(),
        finished_at: nullable(dateTime()),
      },
      'all',
      { description: 'A bulk send.' },
    ),
    BulkSendListResponse: obj({ bulk_sends: arrayOf(ref('BulkSendSchema'), { maxItems: BULK_SENDS_LISTED }) }, 'all'),
    BulkSendRequest: obj(
      {
        rows: arrayOf(
          obj(
            {
              values: { type: 'object', additionalProperties: { type: 'string', maxLength: FIELD_VALUE_MAX }, maxProperties: TEMPLATE_FIELDS_MAX, description: 'A value per field: `{"field_name": "text"}`.' },
              parties: arrayOf(ref('NamedPartyInput'), { maxItems: LIMITS.parties + LIMITS.witnesses, description: "One per party role, in the template's order." }),
            },
            [],
          ),
          { minItems: 1, maxItems: BULK_SEND_LIMITS.rows },
        ),
        submit: bool({ default: false, description: "Sign each draft with the API key and submit it (a person's API key with the create and verify scopes; a template needing one signature method)." }),
      },
      ['rows'],
    ),
  };
}
