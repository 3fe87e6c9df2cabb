import { z } from 'zod';
import { catalog, runEntry } from '../../graph/catalog/index.js';
import type { RecordFieldsFragment, UpdateAgreementInput } from '../../graph/catalog/generated.js';
import { ToolError } from '../errors.js';
import { LIMITS } from '../../domain/text-rules.js';
import { declineOutcome, type ParticipantMove } from '../../domain/records/lifecycle.js';
import { agrReference, body, DESTRUCTIVE, jurisdiction, lapseDays, methodCount, namedParty, OUTREACH, reason, summary, title, WRITE, type ToolDefinition } from '../tool.js';
import { guarded } from './guarded.js';

const { records, lifecycle } = catalog;

const named = (input: z.infer<typeof namedParty>) => ({ displayName: input.display_name, contactPointValue: input.contact_point_value, contactPointType: input.contact_point_type });

function participant(record: RecordFieldsFragment, partyId: string) {
  const found = record.parties.find((party) => party.id === partyId);
  if (!found) throw ToolError.of('not_found', `No participant ${partyId} on ${record.agrReference}`, { retry_action: { tool: 'get_agreement', arguments: { agr_reference: record.agrReference } } });
  return found;
}

/**
 * The move must be one the service offers the caller now (`available_actions`, from the lifecycle
 * table): a preview never issues a confirmation for a move that cannot succeed, and its refusal sends
 * the client to read the record, never back to the same preview.
 */
function requireOffered(record: RecordFieldsFragment, offered: readonly string[], actions: readonly string[], what: string): void {
  if (actions.some((action) => offered.includes(action))) return;
  const now = record.availableActions.length > 0 ? `you may now: ${record.availableActions.join(', ')}` : 'you have no move on it now';
  throw ToolError.of('conflict', `${what} is not possible on ${record.agrReference} (${record.status}; ${now})`, {
    retry_action: { tool: 'get_agreement', arguments: { agr_reference: record.agrReference } },
  });
}

const who = (party: { displayName: string | null; role: string }) => `${party.displayName ?? 'a participant'} (${party.role})`;

/** How the preview of a decline names what the initiator may then do about the decliner (the moves on someone who stepped out). */
const AFTER_DECLINE: Partial<Record<ParticipantMove, string>> = {
  complete_without: 'complete the record without you',
  waive_witness: 'waive your signature as witness',
  waive_co_notarizer: 'go on without your co-notarization',
  replace_witness: 'invite another witness in your place',
};

/**
 * What declining does, by the lifecycle rules the decline itself follows. The caller's row is the one
 * the decline will take: the first active non-initiator row whose contact the record shows them (a
 * participant who is not the initiator sees only their own rows' contacts).
 */
function declineChanges(record: RecordFieldsFragment): string {
  const participants = record.parties.map((p) => ({ ...p, declinedAt: p.declinedAt ? new Date(p.declinedAt) : null, waivedAt: p.waivedAt ? new Date(p.waivedAt) : null }));
  const mine = participants.find((p) => p.role !== 'initiator' && !p.declinedAt && !p.waivedAt && p.contactPointValue !== null);
  if (!mine) throw ToolError.of('conflict', `You have no invitation to decline on ${record.agrReference}`, { retry_action: { tool: 'get_agreement', arguments: { agr_reference: record.agrReference } } });
  const outcome = declineOutcome(record.type, participants, mine.id, record.currentVersion);
  if (outcome.endsRecord) {
    return `You decline ${record.agrReference}. You are the last party still able to sign, so the record ends as declined for everyone: nobody can sign it any more, and the initiator cannot complete it without you.`;
  }
  const moves = [...outcome.initiatorMoves.flatMap((move) => AFTER_DECLINE[move] ?? []), 'rescind the record'];
  return `You decline ${record.agrReference}; the record stays pending and cannot seal while it waits for you. The initiator is told and may ${moves.slice(0, -1).join(', ')} or ${moves.at(-1)}.`;
}

const draftFields = {
  title,
  summary,
  body: body.optional(),
  jurisdiction,
  parties: z.array(namedParty).max(LIMITS.parties).optional().describe('Replaces the non-initiator parties'),
  witnesses: z.array(namedParty).max(LIMITS.witnesses).optional().describe('Replaces the witnesses'),
  lapse_days: lapseDays,
  required_signature_method_count: methodCount.optional(),
  on_chain_full_text: z.boolean().optional().describe('Publish the sealed text on chain instead of only its hash'),
  on_chain_include_verified_parties: z.boolean().optional().describe('Publish verified party details on chain (more public)'),
};
const DRAFT_FIELD_NAMES = Object.keys(draftFields);

const PARTICIPANT_ACTIONS = {
  complete_without: { entry: lifecycle.completeWithoutParticipant, says: 'completes the record without' },
  waive_witness: { entry: lifecycle.waiveWitness, says: 'waives the witness' },
  waive_co_notarizer: { entry: lifecycle.waiveCoNotarizer, says: 'waives the co-notarizer' },
  replace_witness: { entry: lifecycle.replaceWitness, says: 'replaces the witness' },
} as const;

/** The lifecycle tools: seven guarded actions, each a preview tool paired with its execute tool. */
export const lifecycleTools: ToolDefinition[] = [
  ...guarded({
    preview: 'preview_amendment',
    execute: 'amend_agreement',
    title: 'Amend a sealed record',
    purpose: 'Creates an amendment draft of a sealed record with a new text; once the amendment seals, it supersedes this record. Needs the `amend` scope.',
    input: z.strictObject({
      agr_reference: agrReference,
      body,
      amendment_note: reason.describe(`What the amendment changes and why, in the human's words (at most ${LIMITS.reason} characters)`),
      summary,
    }),
    annotations: WRITE,
    operation: () => lifecycle.amend,
    operations: [lifecycle.amend],
    target: (_args, record) => {
      requireOffered(record, record.availableActions, ['amend'], 'An amendment');
      return 'record';
    },
    changes: (_args, record) => [`A new amendment draft of ${record.agrReference} is created with the new text;`, 'once it is signed by everyone and sealed, it supersedes this record.'],
    run: (args, graph, record) => runEntry(graph, lifecycle.amend, { id: record.id, input: { body: args.body, amendmentNote: args.amendment_note ?? null, summary: args.summary ?? null } }),
  }),
  ...guarded({
    preview: 'preview_draft_change',
    execute: 'apply_draft_change',
    title: 'Change or submit a draft',
    purpose:
      'Changes a draft (`action: update` with the fields to change; a body change restarts the initiator\'s signature) or submits a draft the initiator has signed (`action: submit`: invitations go to every participant and the record awaits their signatures). Needs the `create` scope.',
    input: z.strictObject({
      agr_reference: agrReference,
      action: z.enum(['update', 'submit']).describe('`update`: change the fields given; `submit`: send the signed draft to its participants'),
      ...draftFields,
    }),
    annotations: OUTREACH,
    operation: (args) => (args.action === 'submit' ? lifecycle.submit : records.update),
    operations: [records.update, lifecycle.submit],
    target: (args, record) => {
      requireOffered(record, record.availableActions, [args.action === 'submit' ? 'submit' : 'edit'], args.action === 'submit' ? 'Submitting' : 'Changing the draft');
      const given = DRAFT_FIELD_NAMES.filter((name) => (args as Record<string, unknown>)[name] !== undefined);
      if (args.action === 'update' && given.length === 0) {
        throw ToolError.of('validation_error', 'Give at least one field to change', { issues: [{ path: ['action'], message: 'update needs at least one field', type: 'missing' }] });
      }
      if (args.action === 'submit' && given.length > 0) {
        throw ToolError.of('validation_error', 'submit takes no fields; change the draft first', { issues: [{ path: [given[0]!], message: 'Not allowed with submit', type: 'not_allowed' }] });
      }
      return `draft:${args.action}`;
    },
    changes: (args, record) => {
      if (args.action === 'submit') {
        const others = record.parties.filter((party) => party.role !== 'initiator');
        return [`${record.agrReference} leaves draft and awaits signatures;`, `invitations are sent to ${others.map(who).join(', ') || 'nobody else'}.`];
      }
      const given = DRAFT_FIELD_NAMES.filter((name) => (args as Record<string, unknown>)[name] !== undefined);
      return [`Changes ${given.join(', ')} of the draft ${record.agrReference}.`, ...(args.body !== undefined ? ['The new text restarts the initiator\'s signature.'] : [])];
    },
    run: (args, graph, record) => {
      if (args.action === 'submit') return runEntry(graph, lifecycle.submit, { id: record.id });
      const input: UpdateAgreementInput = {
        ...(args.title !== undefined ? { title: args.title } : {}),
        ...(args.summary !== undefined ? { summary: args.summary } : {}),
        ...(args.body !== undefined ? { body: args.body } : {}),
        ...(args.jurisdiction !== undefined ? { jurisdiction: args.jurisdiction } : {}),
        ...(args.parties !== undefined ? { parties: args.parties.map(named) } : {}),
        ...(args.witnesses !== undefined ? { witnesses: args.witnesses.map(named) } : {}),
        ...(args.lapse_days !== undefined ? { lapseDays: args.lapse_days } : {}),
        ...(args.required_signature_method_count !== undefined ? { requiredSignatureMethodCount: args.required_signature_method_count } : {}),
        ...(args.on_chain_full_text !== undefined ? { onChainFullText: args.on_chain_full_text } : {}),
        ...(args.on_chain_include_verified_parties !== undefined ? { onChainIncludeVerifiedParties: args.on_chain_include_verified_parties } : {}),
      };
      return runEntry(graph, records.update, { id: record.id, input });
    },
  }),
  ...guarded({
    preview: 'preview_participant_change',
    execute: 'apply_participant_change',
    title: 'Change a participant or witness',
    purpose:
      'Participant and witness changes on a pending record, by the initiator: `complete_without` (go on without a declined or removed participant), `waive_witness`, `waive_co_notarizer`, or `replace_witness` (with `replacement`). Replacing needs the `amend` scope, the others `cancel`.',
    input: z.strictObject({
      agr_reference: agrReference,
      party_id: z.uuid().describe('The participant\'s id (from get_agreement)'),
      action: z
        .enum(['complete_without', 'waive_witness', 'waive_co_notarizer', 'replace_witness'])
        .describe('`complete_without`: go on without the participant; `waive_witness` / `waive_co_notarizer`: go on without that signature; `replace_witness`: invite `replacement` instead'),
      replacement: namedParty.optional().describe('replace_witness: the new witness'),
    }),
    // replace_witness invites the new witness; the other moves may complete the record and seal it.
    annotations: { ...DESTRUCTIVE, openWorldHint: true },
    operation: (args) => PARTICIPANT_ACTIONS[args.action].entry,
    operations: Object.values(PARTICIPANT_ACTIONS).map((action) => action.entry),
    target: (args, record) => {
      const party = participant(record, args.party_id);
      if ((args.action === 'replace_witness') !== (args.replacement !== undefined)) {
        throw ToolError.of('validation_error', 'replacement goes with replace_witness, and only with it', { issues: [{ path: ['replacement'], message: 'Required for replace_witness only', type: 'invalid' }] });
      }
      requireOffered(record, party.availableActions, [args.action], `${args.action.replace(/_/g, ' ')} for ${who(party)}`);
      return `party:${args.party_id}:${args.action}`;
    },
    changes: (args, record) => [
      `${record.agrReference}: ${PARTICIPANT_ACTIONS[args.action].says} ${who(participant(record, args.party_id))}${args.replacement ? ` with ${args.replacement.display_name}` : ''}.`,
    ],
    run: (args, graph, record) => {
      const target = { id: record.id, partyId: args.party_id };
      switch (args.action) {
        case 'replace_witness':
          return runEntry(graph, lifecycle.replaceWitness, { ...target, input: named(args.replacement!) });
        case 'complete_without':
          return runEntry(graph, lifecycle.completeWithoutParticipant, target);
        case 'waive_witness':
          return runEntry(graph, lifecycle.waiveWitness, target);
        case 'waive_co_notarizer':
          return runEntry(graph, lifecycle.waiveCoNotarizer, target);
      }
    },
  }),
  ...guarded({
    preview: 'preview_invitation_resend',
    execute: 'resend_invitation',
    title: 'Resend an invitation',
    purpose: 'Sends a participant\'s invitation to sign again (limited per hour). Needs the `amend` scope.',
    input: z.strictObject({ agr_reference: agrReference, party_id: z.uuid().describe('The participant\'s id (from get_agreement)') }),
    annotations: OUTREACH,
    operation: () => lifecycle.resendInvitation,
    operations: [lifecycle.resendInvitation],
    target: (args, record) => {
      const party = participant(record, args.party_id);
      requireOffered(record, party.availableActions, ['resend_invitation'], `Resending the invitation of ${who(party)}`);
      return `party:${args.party_id}`;
    },
    changes: (args, record) => [`The invitation to sign ${record.agrReference} is sent again to ${who(participant(record, args.party_id))}.`],
    run: (args, graph, record) => runEntry(graph, lifecycle.resendInvitation, { id: record.id, partyId: args.party_id }),
  }),
  ...guarded({
    preview: 'preview_cancellation',
    execute: 'cancel_agreement',
    title: 'Rescind or cancel a record',
    purpose:
      '`action: rescind` ends a pending record for good (initiator only). `action: cancel` cancels a draft in place, or for a sealed record creates a mutual cancellation draft that everyone signs. Needs the `cancel` scope.',
    input: z.strictObject({
      agr_reference: agrReference,
      action: z.enum(['rescind', 'cancel']).describe('`rescind`: end a pending record for good (initiator); `cancel`: cancel a draft, or start a mutual cancellation of a sealed record'),
      reason,
      summary: summary.describe(`A sealed record's cancellation: a short summary of the cancellation record (at most ${LIMITS.summary} characters)`),
    }),
    annotations: DESTRUCTIVE,
    operation: (args) => (args.action === 'rescind' ? lifecycle.rescind : lifecycle.cancel),
    operations: [lifecycle.rescind, lifecycle.cancel],
    target: (args, record) => {
      requireOffered(record, record.availableActions, args.action === 'rescind' ? ['rescind'] : ['cancel_draft', 'cancel'], args.action === 'rescind' ? 'Rescinding' : 'Cancelling');
      return `record:${args.action}`;
    },
    changes: (args, record) =>
      args.action === 'rescind'
        ? [`${record.agrReference} is rescinded: it ends for every participant and can no longer be signed.`]
        : record.status === 'sealed'
          ? [`A mutual cancellation draft of ${record.agrReference} is created; it takes effect once everyone signs it.`]
          : [`The draft ${record.agrReference} is cancelled.`],
    run: (args, graph, record) =>
      args.action === 'rescind'
        ? runEntry(graph, lifecycle.rescind, { id: record.id })
        : runEntry(graph, lifecycle.cancel, { id: record.id, input: { reason: args.reason ?? null, summary: args.summary ?? null } }),
  }),
  ...guarded({
    preview: 'preview_decline',
    execute: 'decline_agreement',
    title: 'Decline a record',
    purpose: 'Declines a record the caller was invited to (a non-initiator participant or witness), with an optional reason. Needs the `cancel` scope.',
    input: z.strictObject({ agr_reference: agrReference, reason }),
    annotations: DESTRUCTIVE,
    operation: () => lifecycle.decline,
    operations: [lifecycle.decline],
    target: (_args, record) => {
      requireOffered(record, record.availableActions, ['decline'], 'Declining');
      return 'record:decline';
    },
    changes: (_args, record) => [declineChanges(record)],
    run: (args, graph, record) => runEntry(graph, lifecycle.decline, { id: record.id, input: { reason: args.reason ?? null } }),
  }),
  ...guarded({
    preview: 'preview_counter_resolution',
    execute: 'resolve_counter',
    title: 'Resolve a counter-proposal',
    purpose:
      'The initiator resolves the pending counter-proposal: `accept` (its text becomes the record\'s, a new version, signatures restart), `partially_accept` (with `resolved_body`) or `reject`. Needs the `amend` scope.',
    input: z.strictObject({
      agr_reference: agrReference,
      counter_id: z.uuid().describe('The active counter-proposal\'s id (active_counter.id from get_agreement)'),
      decision: z
        .enum(['accept', 'partially_accept', 'reject'])
        .describe('`accept`: the counter-proposal\'s text becomes the record\'s; `partially_accept`: `resolved_body` does; `reject`: the record\'s text stays'),
      resolved_body: body.optional().describe('partially_accept: the text as resolved'),
    }),
    // Accepting replaces the record's text and restarts every signature: not undone by calling again.
    annotations: DESTRUCTIVE,
    operation: () => lifecycle.resolveCounter,
    operations: [lifecycle.resolveCounter],
    target: (args, record) => {
      requireOffered(record, record.availableActions, ['resolve_counter'], 'Resolving a counter-proposal');
      if (record.activeCounter?.id !== args.counter_id) {
        throw ToolError.of('not_found', `No active counter-proposal ${args.counter_id} on ${record.agrReference}`, { retry_action: { tool: 'get_agreement', arguments: { agr_reference: record.agrReference } } });
      }
      if ((args.decision === 'partially_accept') !== (args.resolved_body !== undefined)) {
        throw ToolError.of('validation_error', 'resolved_body goes with partially_accept, and only with it', { issues: [{ path: ['resolved_body'], message: 'Required for partially_accept only', type: 'invalid' }] });
      }
      return `counter:${args.counter_id}`;
    },
    changes: (args, record) =>
      args.decision === 'reject'
        ? [`The counter-proposal is rejected; ${record.agrReference} keeps its text (version ${record.currentVersion}).`]
        : [`The ${args.decision === 'accept' ? 'proposed' : 'resolved'} text replaces the text of ${record.agrReference}: version ${record.currentVersion} becomes ${record.currentVersion + 1} and every signature restarts.`],
    run: (args, graph, record) =>
      runEntry(graph, lifecycle.resolveCounter, { id: record.id, counterId: args.counter_id, input: { decision: args.decision, resolvedBody: args.resolved_body ?? null } }),
  }),
];
