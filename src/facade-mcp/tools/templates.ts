import { z } from 'zod';
import { LIMITS } from '../../domain/text-rules.js';
import { catalog, runEntry } from '../../graph/catalog/index.js';
import type { TemplateFieldsFragment } from '../../graph/catalog/generated.js';
import { snakeKeys } from '../../graph/transport/case.js';
import { recordGuidance } from '../next-action.js';
import { recordResult, type NextAction } from '../views.js';
import { humanStep, namedParty, nextAction, partyInput, READ, recordOutput, tool, WRITE, type ToolDefinition } from '../tool.js';

const { templates } = catalog;

const templateId = z.uuid().describe('The template\'s id, from `list_templates`');

const template = z.looseObject({
  id: z.string(),
  team_id: z.string().nullable().describe('The team that owns it (its records are the team\'s); null for the human\'s own'),
  name: z.string(),
  record_type: z.string(),
  title: z.string().nullable(),
  body: z.string().describe('The text with {{field}} placeholders'),
  fields: z.array(z.looseObject({ name: z.string(), label: z.string(), required: z.boolean(), max_length: z.number().int().nullable() })),
  parties: z.array(z.looseObject({ label: z.string(), role: z.string() })).describe('The roles to fill, in order: give one party per role'),
  version: z.number().int(),
});

/** The call that makes a draft from the template: a value per field and a party per role, for the human to give. */
function useTemplate(found: TemplateFieldsFragment): NextAction {
  return {
    tool: 'create_record_from_template',
    arguments: {
      template_id: found.id,
      values: Object.fromEntries(found.fields.map((field) => [field.name, `<${field.label}${field.required ? '' : ' (optional)'}>`])),
      parties: found.parties.map((party) => ({ display_name: `<the ${party.label}'s name>`, contact_point_value: `<the ${party.label}'s email address>` })),
    },
    description: 'A draft from this template, once the human has given each value and party.',
  };
}

/** The human's and their teams' templates, and drafts made from them. */
export const templateTools: ToolDefinition[] = [
  tool({
    name: 'list_templates',
    title: 'List templates',
    description:
      "The human's own record templates, or with `team_id` (from `list_teams`) a team's: texts with {{field}} placeholders, the party roles to fill and the record's defaults. Needs the `retrieve` scope.",
    input: z.strictObject({ team_id: z.uuid().optional().describe("A team's templates (from `list_teams`) instead of the human's own") }),
    output: z.object({ templates: z.array(template), next_action: nextAction, human_step: humanStep }),
    annotations: READ,
    operations: [templates.list],
    run: async (args, { graph }) => {
      const list = await runEntry(graph, templates.list, { teamId: args.team_id ?? null });
      return {
        structured: {
          templates: snakeKeys(list),
          next_action: list.length ? { tool: 'get_template', arguments: { template_id: list[0]!.id }, description: 'The newest template, with its fields and party roles.' } : null,
          human_step: list.length ? null : 'There are no templates here: the human makes them in the web UI (or use create_agreement with the full text).',
        },
      };
    },
  }),
  tool({
    name: 'get_template',
    title: 'Read a template',
    description:
      'One template the human may use (their own, or of a team this connection acts for): its text, the fields to fill (`required`, `max_length`), the party roles in order and the defaults its records get; `next_action` is the call that makes a draft from it. Needs the `retrieve` scope.',
    input: z.strictObject({ template_id: templateId }),
    output: z.object({ template, next_action: nextAction, human_step: humanStep }),
    annotations: READ,
    operations: [templates.get],
    run: async (args, { graph }) => {
      const found = await runEntry(graph, templates.get, { id: args.template_id });
      const asked = [...found.fields.map((field) => field.label), ...found.parties.map((role) => `the ${role.label}'s name and email`)];
      return {
        structured: {
          template: snakeKeys(found),
          next_action: useTemplate(found),
          human_step: asked.length ? `Ask the human for: ${asked.join('; ')}.` : null,
        },
      };
    },
  }),
  tool({
    name: 'create_record_from_template',
    title: 'Create a draft from a template',
    description:
      "Creates a draft record from a template with the human as initiator: its {{field}} placeholders filled with `values` and its party roles with `parties` (one per role, in the template's order); type, defaults and signing order are the template's. A team's template makes the team's record (the human needs the member or admin role in it, and this connection must act for the team). A missing or wrong value fails naming the field (`values.<name>`). Nothing is sent to anyone yet: the initiator signs the draft first (follow `next_action`), then submits it. Needs the `create` scope.",
    input: z.strictObject({
      template_id: templateId,
      values: z
        .record(z.string().max(40), z.string().max(2000))
        .default({})
        .describe('A value for each field of the template, by field name: {"field_name": "text"} (see `get_template`)'),
      parties: z
        .array(namedParty)
        .max(LIMITS.parties + LIMITS.witnesses)
        .default([])
        .describe("One person per party role of the template, in the template's order (witness roles included)"),
    }),
    output: recordOutput,
    annotations: WRITE,
    operations: [templates.createRecord],
    run: async (args, { graph }) => {
      const record = await runEntry(graph, templates.createRecord, { id: args.template_id, input: { values: args.values, parties: args.parties.map(partyInput) } });
      return { structured: recordResult(record, recordGuidance(record)) };
    },
  }),
];
