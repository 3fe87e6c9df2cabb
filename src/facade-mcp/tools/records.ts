import { z } from 'zod';
import { MAX_LIST_OFFSET } from '../../domain/records/record-service.js';
import { LIMITS } from '../../domain/text-rules.js';
import { RECORD_STATUSES, RECORD_TYPES, SIGNING_ORDERS, TEAM_ROLES } from '../../domain/vocabulary.js';
import { catalog, runEntry, type Graph } from '../../graph/catalog/index.js';
import { operationFailure } from '../../graph/transport/failure.js';
import type { CreateAgreementInput } from '../../graph/catalog/generated.js';
import { snakeKeys } from '../../graph/transport/case.js';
import { recordGuidance } from '../next-action.js';
import { evidenceLinks, recordResult, takeIdenticons, wantsSvg, type ResourceLink } from '../views.js';
import {
  agrReference,
  body,
  humanStep,
  identicon,
  jurisdiction,
  lapseDays,
  methodCount,
  namedParty,
  nextAction,
  partyInput as party,
  READ,
  recordOutput,
  summary,
  title,
  tool,
  visualRepresentation,
  WRITE,
  type ToolDefinition,
} from '../tool.js';

const { records, verification, artifacts, teams } = catalog;

/** Public verification, creating, reading and listing records, and share cards. */
/** A resource link to the sealed PDF through a single-use ticket; none for a notarization or while it is being made. */
async function sealedPdfLink(graph: Graph, reference: string): Promise<ResourceLink[]> {
  try {
    const ticket = await runEntry(graph, artifacts.createDocumentTicket, { id: reference });
    return [
      {
        type: 'resource_link',
        uri: ticket.url,
        name: `${reference}-sealed.pdf`,
        title: `The sealed PDF of ${reference}`,
        description: `The signed PDF with its embedded evidence; the link opens once, until ${ticket.expiresAt}.`,
        mimeType: 'application/pdf',
      },
    ];
  } catch (error) {
    const code = operationFailure(error)?.code;
    if (code === 'not_found' || code === 'artifact_pending') return [];
    throw error;
  }
}

/** A team's id, as `list_teams` gives it. */
const teamId = z.uuid().optional();

export const recordTools: ToolDefinition[] = [
  tool({
    name: 'list_teams',
    title: 'List teams',
    description:
      "The teams this connection may act for (the human chose them when connecting), with the human's role in each: `admin`, `member` (creates and runs records) or `viewer` (reads). Give a team's `id` as `team_id` to `list_agreements` or `create_agreement`. Needs the `retrieve` scope.",
    input: z.strictObject({}),
    output: z.object({
      teams: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(TEAM_ROLES), member_count: z.number().int() })),
      next_action: nextAction,
      human_step: humanStep,
    }),
    annotations: READ,
    operations: [teams.list],
    run: async (_args, { graph }) => {
      const list = await runEntry(graph, teams.list, {});
      return {
        structured: {
          teams: list.map((team) => ({ id: team.id, name: team.name, role: team.role, member_count: team.memberCount })),
          next_action: list.length ? { tool: 'list_agreements', arguments: { team_id: list[0]!.id }, description: "The first team's records." } : null,
          human_step: null,
        },
      };
    },
  }),
  tool({
    name: 'verify_agreement',
    title: 'Verify a record publicly',
    description:
      'Public verification by AGR reference; needs no credentials. With `content_hash` (sha256:<hex> of the exact text or file) it checks that artifact against the record: verdict `verified`, `matched_superseded`, `matched_not_sealed` or `no_match`. Without an artifact it is only a certificate lookup (verdict `certificate`, or `not_found`), not proof that any document matches. `current_authority` names the record that is in force when this one was superseded.',
    input: z.strictObject({
      agr_reference: agrReference,
      content_hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 lowercase hex digits>').optional().describe('sha256:<hex> of the artifact to check'),
      visual_representation: visualRepresentation,
    }),
    output: z.object({
      agr_reference: z.string(),
      record_found: z.boolean(),
      record_match: z.boolean().nullable(),
      verified: z.boolean(),
      verdict: z.enum(['verified', 'certificate', 'matched_superseded', 'matched_not_sealed', 'no_match', 'not_found']),
      current_authority: z.string().nullable(),
      match_method: z.string().nullable(),
      status: z.string().nullable(),
      sealed_at: z.string().nullable(),
      identicon: identicon.nullable(),
      document: z
        .object({
          pades_level: z.string().nullable().describe('B-B without a timestamp authority; B-LTA with one; B-T or B-LT when part of the long-term data could not be had'),
          certificate_subject: z.string().nullable().describe("The seal certificate's subject"),
          certificate_sha256: z.string().nullable().describe('sha256:<hex> of the seal certificate'),
          versions: z.number().int().describe('Versions of the sealed PDF: 1 as sealed, one more per archive timestamp renewal'),
          current_hash: z.string().describe('Document hash of the PDF served now'),
        })
        .nullable()
        .describe('The sealed PDF once it exists (not for notarizations)'),
    }),
    annotations: READ,
    operations: [verification.verifyRecord],
    run: async (args, { graph, publicBaseUrl }) => {
      const result = await runEntry(graph, verification.verifyRecord, {
        reference: args.agr_reference,
        artifact: args.content_hash ? { contentHash: args.content_hash } : null,
        withSvg: wantsSvg(args.visual_representation),
      });
      const { sealedMetadata: _metadata, documentVersion: _version, ...rest } = result;
      const { value, images } = takeIdenticons(rest, args.visual_representation, true);
      return { structured: snakeKeys(value), images, links: result.recordFound ? evidenceLinks(publicBaseUrl, result.agrReference, null) : [] };
    },
  }),
  tool({
    name: 'create_agreement',
    title: 'Create an agreement draft',
    description:
      'Creates a draft record (agreement by default; `declaration` has no other party; `witnessed_agreement` needs witnesses) with the human as initiator. The text must be exactly what the human wants to sign. Nothing is sent to anyone yet: the initiator signs the draft first (follow `next_action`), then submits it. `on_chain_include_verified_parties` publishes verified party details on chain and must be explicitly acknowledged by each signer. Needs the `create` scope.',
    input: z
      .strictObject({
        body,
        title,
        summary,
        type: z
          .enum(['agreement', 'declaration', 'witnessed_agreement'])
          .default('agreement')
          .describe('`agreement` (default: the initiator and other parties sign), `declaration` (the initiator alone), `witnessed_agreement` (parties and witnesses sign)'),
        jurisdiction,
        other_party_email: z.email().max(LIMITS.contactPointValue).optional().describe('Email address of the other party'),
        other_party_name: z.string().trim().min(1).max(LIMITS.displayName).optional().describe(`Display name of the other party (1..${LIMITS.displayName} characters)`),
        additional_parties: z.array(namedParty).max(LIMITS.parties - 1).optional().describe(`Further parties (at most ${LIMITS.parties} non-initiator parties in all)`),
        witnesses: z.array(namedParty).max(LIMITS.witnesses).optional().describe(`witnessed_agreement: the witnesses (at most ${LIMITS.witnesses})`),
        on_chain_full_text: z.boolean().describe('Publish the sealed text on chain instead of only its hash'),
        on_chain_include_verified_parties: z.boolean().describe('Publish verified party details on chain (more public)'),
        required_signature_method_count: methodCount.default(1),
        lapse_days: lapseDays.describe(`Days the others have to confirm (${LIMITS.lapseDays.min}..${LIMITS.lapseDays.max})`),
        signing_order: z
          .enum(SIGNING_ORDERS)
          .optional()
          .describe('`parallel` (default): everyone is invited at submission; `sequential`: the parties are invited and sign one at a time in the order given (other_party first), then the witnesses'),
        team_id: teamId.describe('The team that will own it (from `list_teams`; the human needs the member or admin role in it, and allowed this connector to act for it). Omit for a personal record.'),
      })
      .refine((args) => (args.other_party_email === undefined) === (args.other_party_name === undefined), {
        message: 'Give other_party_email and other_party_name together',
        path: ['other_party_name'],
      }),
    output: recordOutput,
    annotations: WRITE,
    operations: [records.createAgreement],
    run: async (args, { graph }) => {
      const parties = [
        ...(args.other_party_email && args.other_party_name ? [party({ display_name: args.other_party_name, contact_point_value: args.other_party_email, contact_point_type: 'email' })] : []),
        ...(args.additional_parties ?? []).map(party),
      ];
      const input: CreateAgreementInput = {
        type: args.type,
        body: args.body,
        title: args.title ?? null,
        summary: args.summary ?? null,
        jurisdiction: args.jurisdiction ?? null,
        parties: args.type === 'declaration' ? null : parties,
        witnesses: args.witnesses?.map(party) ?? null,
        onChainFullText: args.on_chain_full_text,
        onChainIncludeVerifiedParties: args.on_chain_include_verified_parties,
        requiredSignatureMethodCount: args.required_signature_method_count,
        lapseDays: args.lapse_days ?? null,
        signingOrder: args.signing_order ?? null,
        teamId: args.team_id ?? null,
      };
      const record = await runEntry(graph, records.createAgreement, { input });
      return { structured: recordResult(record, recordGuidance(record)) };
    },
  }),
  tool({
    name: 'get_agreement',
    title: 'Read a record',
    description:
      'Reads one record of the caller\'s identity graph by AGR reference or id: text, status, version, participants and their signature state, the initiator signature, chain record; with `next_action` and `human_step` for what comes next. Needs the `retrieve` scope (an email sign-in on this session grants it).',
    input: z.strictObject({ agr_reference: agrReference, visual_representation: visualRepresentation }),
    output: recordOutput,
    annotations: READ,
    operations: [records.get],
    run: async (args, { graph, publicBaseUrl }) => {
      const record = await runEntry(graph, records.get, { id: args.agr_reference, withSvg: wantsSvg(args.visual_representation) });
      const { value, images } = takeIdenticons(record, args.visual_representation, false);
      const links = record.sealedAt ? evidenceLinks(publicBaseUrl, record.agrReference, record.blockchain?.explorerUrl) : [];
      return { structured: recordResult(value, recordGuidance(record)), images, links };
    },
  }),
  tool({
    name: 'list_agreements',
    title: 'List records',
    description:
      `Lists the records of the caller's identity graph, newest first, as compact entries (reference, type, status, title, version, initiator signature); with \`team_id\`, the records of that team (from \`list_teams\`). Filter by \`status\` or \`type\`; page with \`limit\` (${LIMITS.pageSize.min}..${LIMITS.pageSize.max}, default ${LIMITS.pageSize.default}) and \`offset\`. Only document identicons are ever inlined. Needs the \`retrieve\` scope.`,
    input: z.strictObject({
      status: z
        .enum(RECORD_STATUSES)
        .optional()
        .describe('Only records in this status'),
      type: z.enum(RECORD_TYPES).optional().describe('Only records of this type'),
      limit: z
        .number()
        .int()
        .min(LIMITS.pageSize.min)
        .max(LIMITS.pageSize.max)
        .default(LIMITS.pageSize.default)
        .describe(`Entries per page (${LIMITS.pageSize.min}..${LIMITS.pageSize.max}, default ${LIMITS.pageSize.default})`),
      offset: z.number().int().min(0).max(MAX_LIST_OFFSET).default(0).describe(`Entries to skip (0..${MAX_LIST_OFFSET}), for the next page`),
      team_id: teamId.describe("A team's records (from `list_teams`) instead of the human's own"),
      visual_representation: visualRepresentation,
    }),
    output: z.object({
      agreements: z.array(
        z.looseObject({ agr_reference: z.string(), type: z.string(), status: z.string(), title: z.string().nullable(), agreement_version: z.number().int(), identicon: identicon.nullable() }),
      ),
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      next_action: nextAction,
      human_step: humanStep,
    }),
    annotations: READ,
    operations: [records.list],
    run: async (args, { graph }) => {
      const page = await runEntry(graph, records.list, {
        status: args.status ?? null,
        type: args.type ?? null,
        teamId: args.team_id ?? null,
        limit: args.limit,
        offset: args.offset,
        withSvg: wantsSvg(args.visual_representation),
      });
      const entries = page.records.map((record) => ({
        agrReference: record.agrReference,
        type: record.type,
        status: record.status,
        title: record.title,
        summary: record.summary,
        agreementVersion: record.currentVersion,
        initiatorSignature: record.initiatorSignature,
        createdAt: record.createdAt,
        sealedAt: record.sealedAt,
        identicon: record.identicon,
      }));
      const { value, images } = takeIdenticons(entries, args.visual_representation, true);
      const more = page.offset + page.records.length < page.total;
      return {
        structured: {
          agreements: snakeKeys(value),
          total: page.total,
          limit: page.limit,
          offset: page.offset,
          next_action: more ? { tool: 'list_agreements', arguments: { ...args, offset: page.offset + page.records.length }, description: 'The next page.' } : null,
          human_step: null,
        },
        images,
      };
    },
  }),
  tool({
    name: 'get_agreement_card',
    title: 'Get the share card',
    description:
      'The private share card (PNG) of a sealed record, for a participant. `representation`: `url` (default) returns a short-lived single-use URL to hand to the human; `inline` returns the image as an image content block; `compatibility_base64` puts the PNG as base64 in the structure for clients that cannot show images. The result ends with a `resource_link` to the sealed, signed PDF (a single-use link that expires in a few minutes; none for a notarization, or while the PDF is being made). Needs the `retrieve` scope.',
    input: z.strictObject({
      agr_reference: agrReference,
      representation: z
        .enum(['url', 'inline', 'compatibility_base64'])
        .default('url')
        .describe('`url` (default): a short-lived single-use link for the human; `inline`: an image content block; `compatibility_base64`: the PNG as base64 in the result'),
    }),
    output: z.object({
      agr_reference: z.string(),
      representation: z.string(),
      url: z.string().nullable(),
      expires_at: z.string().nullable(),
      filename: z.string().nullable(),
      content_type: z.string().nullable(),
      hash: z.string().nullable(),
      content_base64: z.string().optional(),
      next_action: nextAction,
      human_step: humanStep,
    }),
    // Not read-only: the `url` representation issues a single-use ticket each call.
    annotations: { ...READ, readOnlyHint: false, idempotentHint: false },
    operations: [artifacts.createCardTicket, artifacts.getCard, artifacts.createDocumentTicket],
    run: async (args, { graph }) => {
      const base = { agr_reference: args.agr_reference, representation: args.representation, next_action: null };
      const links = await sealedPdfLink(graph, args.agr_reference);
      if (args.representation === 'url') {
        const ticket = await runEntry(graph, artifacts.createCardTicket, { id: args.agr_reference, notarizationOnly: null });
        return {
          structured: { ...base, url: ticket.url, expires_at: ticket.expiresAt, filename: null, content_type: null, hash: null, human_step: 'Give the human this URL; it opens once and expires in a few minutes.' },
          links,
        };
      }
      const card = await runEntry(graph, artifacts.getCard, { id: args.agr_reference, notarizationOnly: null });
      const file = { url: null, expires_at: null, filename: card.filename, content_type: card.contentType, hash: card.hash, human_step: null };
      if (args.representation === 'compatibility_base64') return { structured: { ...base, ...file, content_base64: card.contentBase64 }, links };
      return { structured: { ...base, ...file }, images: [{ type: 'image', data: card.contentBase64, mimeType: card.contentType }], links };
    },
  }),
];
