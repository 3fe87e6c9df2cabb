import { z } from 'zod';
import { BULK_SEND_LIMITS } from '../../domain/bulk-sends/bulk-send-input.js';
import { LIMITS } from '../../domain/text-rules.js';
import { catalog, runEntry } from '../../graph/catalog/index.js';
import type { BulkSendFieldsFragment } from '../../graph/catalog/generated.js';
import { snakeKeys } from '../../graph/transport/case.js';
import { humanStep, namedParty, nextAction, OUTREACH, READ, tool, type ToolDefinition } from '../tool.js';

const { bulkSends } = catalog;

const bulkSend = z.looseObject({
  id: z.string(),
  template_id: z.string(),
  status: z.enum(['queued', 'running', 'completed']),
  total: z.number().int(),
  processed: z.number().int(),
  created: z.number().int(),
  submitted: z.number().int(),
  failed: z.number().int(),
  failures: z.array(z.looseObject({ row: z.number().int(), issues: z.array(z.looseObject({ path: z.array(z.string()), message: z.string(), code: z.string() })) })),
});
const output = z.object({ bulk_send: bulkSend, next_action: nextAction, human_step: humanStep });

/** The bulk send with what to do next: look again while it runs. */
const result = (bulk: BulkSendFieldsFragment) => ({
  structured: {
    bulk_send: snakeKeys<z.infer<typeof bulkSend>>(bulk),
    next_action: bulk.status === 'completed' ? null : { tool: 'get_bulk_send', arguments: { bulk_send_id: bulk.id }, description: 'How far the bulk send is, and which rows failed.' },
    human_step: null,
  },
});

/** Many drafts from one template at once, and their progress. */
export const bulkSendTools: ToolDefinition[] = [
  tool({
    name: 'bulk_send_template',
    title: 'Bulk send from a template',
    description:
      `Makes one record per row from a template of the human's (or of their team): each row gives the template's field values and one party per role, in the template's order; 1 to ${BULK_SEND_LIMITS.rows} rows. ` +
      'Every row is checked at once as a single record from the template would be: refused rows are reported in `failures` with their issues, the others are made by a job, each exactly once. ' +
      "Without `submit` they are drafts the human signs and submits. `submit: true` signs each draft with the API key and submits it, inviting the parties: only for a person's API key with the `create` and `verify` scopes and a template needing one signature method. Needs the `create` scope.",
    input: z.strictObject({
      template_id: z.uuid().describe('The template to use'),
      rows: z
        .array(
          z.strictObject({
            values: z.record(z.string(), z.string()).describe('A value per template field: {"field_name": "text"}'),
            parties: z.array(namedParty).max(LIMITS.parties + LIMITS.witnesses).describe("One per party role, in the template's order"),
          }),
        )
        .min(1)
        .max(BULK_SEND_LIMITS.rows)
        .describe(`One record per row (1 to ${BULK_SEND_LIMITS.rows})`),
      submit: z.boolean().optional().describe("Sign each draft with the API key and submit it (a person's API key only)"),
    }),
    output,
    // With submit: true it invites (mails or messages) every row's parties.
    annotations: OUTREACH,
    operations: [bulkSends.start],
    run: async (args, { graph }) => {
      const rows = args.rows.map((row) => ({ values: row.values, parties: row.parties.map((p) => ({ displayName: p.display_name, contactPointValue: p.contact_point_value, contactPointType: p.contact_point_type })) }));
      return result(await runEntry(graph, bulkSends.start, { templateId: args.template_id, input: { rows, submit: args.submit ?? false } }));
    },
  }),
  tool({
    name: 'get_bulk_send',
    title: 'Read a bulk send',
    description: "A bulk send's status (queued, running, completed), its counts and every failed row with its issues. Needs the `retrieve` scope.",
    input: z.strictObject({ bulk_send_id: z.uuid().describe('The id bulk_send_template answered with') }),
    output,
    annotations: READ,
    operations: [bulkSends.get],
    run: async (args, { graph }) => result(await runEntry(graph, bulkSends.get, { id: args.bulk_send_id })),
  }),
];
