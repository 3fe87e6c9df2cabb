import { z } from 'zod';
import type { Principal, Scope } from '../domain/identity/principal.js';
import type { ConfirmationBinding, ConfirmationRefusal } from '../domain/mcp/confirmations.js';
import type { SecretInputMode } from '../domain/mcp/entities.js';
import { BODY_LIMITS, BODY_RULE, LIMITS } from '../domain/text-rules.js';
import { INPUT_CONTACT_POINT_TYPES } from '../domain/vocabulary.js';
import { RECORD_ACTIONS } from '../domain/records/lifecycle.js';
import type { AnyCatalogEntry, Graph } from '../graph/catalog/index.js';
import type { RetryAction } from './errors.js';
import type { ImageBlock, ResourceLink } from './views.js';

/** Confirmation tokens of guarded actions, stored in PostgreSQL (src/domain/mcp/confirmations.ts). */
export type ConfirmationStore = {
  issue(binding: ConfirmationBinding): Promise<{ token: string; expiresAt: Date }>;
  redeem(token: string, binding: ConfirmationBinding): Promise<ConfirmationRefusal | null>;
};

/** MCP_SECRET_INPUT: `url_only` refuses secret inputs (a signature code, a passkey response) as tool arguments. */
export type SecretInputPolicy = 'prefer_url' | 'url_only';

/** What a tool's handler has: the graph bound to the caller's context, and the caller. */
export type ToolContext = {
  graph: Graph;
  principal: Principal | null;
  confirmations: ConfirmationStore;
  /** PUBLIC_BASE_URL: where the links a result carries point (the public verification page). */
  publicBaseUrl: string;
  /**
   * How this session takes secret inputs: `url` when its client declared URL-mode elicitation (the
   * human enters them on the service's page), else `argument`; and the operator's policy.
   */
  secretInput: { mode: SecretInputMode; policy: SecretInputPolicy };
};

/** A tool's answer: the structure (validated by the output schema) and image blocks to append. */
export type ToolOutput = { structured: Record<string, unknown>; images?: ImageBlock[]; links?: ResourceLink[] };

export type ToolAnnotations = { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

export type ToolDefinition = {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  annotations: ToolAnnotations;
  /** The catalog operations the tool executes (its scopes come from their declared access). */
  operations: readonly AnyCatalogEntry[];
  run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
  /** The call that recovers from a failure of this tool with these arguments. */
  recovery?(code: string, args: Record<string, unknown>): RetryAction;
  /** The scopes a call with these (valid) arguments needs, when they depend on the arguments (default: every operation's). */
  scopesFor?(args: Record<string, unknown>): Scope[];
};

/** Declares a tool: its arguments are typed by its input schema. */
export function tool<S extends z.ZodObject>(definition: Omit<ToolDefinition, 'input' | 'run'> & { input: S; run(args: z.infer<S>, context: ToolContext): Promise<ToolOutput> }): ToolDefinition {
  return definition;
}

/** "the 'create' scope", "the 'retrieve' and 'cancel' scopes": said the same way in results and at the transport. */
export const scopesNamed = (scopes: readonly string[]): string => `the ${scopes.map((scope) => `'${scope}'`).join(' and ')} scope${scopes.length > 1 ? 's' : ''}`;

/** How an assistant gets more than `retrieve` (said in auth_required failures and by get_authentication_status). */
export const MORE_THAN_RETRIEVE =
  'Connect with an API key that has the scopes needed (sent as the transport\'s `Authorization: Bearer`, created by the human in the web UI) or through the OAuth connector at /mcp/oauth; a sign-in code grants `retrieve` only.';

/**
 * Why MCP_SECRET_INPUT=url_only refused a secret input (`what`), said for what the client can do: one
 * that declared URL-mode elicitation calls again without the argument and the human is asked on the
 * service's page; any other client must declare that capability first.
 */
export function urlOnlyRefusal(what: string, mode: SecretInputMode, retry: { tool: string; without: string }): string {
  const rule = `This server takes ${what} only on its own page, through URL-mode elicitation`;
  if (mode === 'url') return `${rule}: call ${retry.tool} again without \`${retry.without}\`, and the human is asked for it on that page (this client declared URL-mode elicitation)`;
  return `${rule}: the MCP client must declare the \`elicitation\` capability with \`url\` mode at initialize (capabilities.elicitation.url)`;
}

/** Read-only, safe to repeat. */
export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Creates or changes something; not destructive; repeating it does it again. */
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Starting or resuming: repeating it changes nothing more. */
export const RESUME: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Ends or replaces something for good. */
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
/**
 * Creates or changes something and reaches beyond the service (openWorldHint): mails or messages a
 * person, fetches a public page, or seals a record, which is then anchored on a public chain.
 */
export const OUTREACH: ToolAnnotations = { ...WRITE, openWorldHint: true };

// Argument schemas shared by tools, with the spec's limits.
export const agrReference = z.string().trim().min(1).max(100).describe('The record\'s AGR reference (e.g. AGR-7K3M-9QXD) or its id');
export const visualRepresentation = z
  .enum(['metadata', 'inline', 'compatibility_data_uri'])
  .default('metadata')
  .describe('Identicons: compact metadata (default), `inline` as image content blocks, or `compatibility_data_uri` for clients that cannot show images');
export const body = z.string().min(1).max(BODY_LIMITS.maxRawCharacters).describe(`The exact text: ${BODY_RULE}`);
export const reason = z.string().max(LIMITS.reason).nullish().describe(`The reason, in the human's words (at most ${LIMITS.reason} characters); kept in the record's history`);
export const title = z.string().max(LIMITS.title).nullish().describe(`The record's title (at most ${LIMITS.title} characters); not part of the signed text`);
export const summary = z.string().max(LIMITS.summary).nullish().describe(`A short plain-language summary (at most ${LIMITS.summary} characters); not part of the signed text`);
export const jurisdiction = z.string().max(LIMITS.jurisdiction).nullish().describe(`The governing jurisdiction as the human states it, e.g. "England and Wales" (at most ${LIMITS.jurisdiction} characters)`);
export const lapseDays = z
  .number()
  .int()
  .min(LIMITS.lapseDays.min)
  .max(LIMITS.lapseDays.max)
  .nullish()
  .describe(`Days the others have to sign before the record lapses (${LIMITS.lapseDays.min}..${LIMITS.lapseDays.max})`);
export const namedParty = z.strictObject({
  display_name: z.string().trim().min(1).max(LIMITS.displayName).describe(`The person's name as it appears on the record (1..${LIMITS.displayName} characters)`),
  contact_point_value: z.string().trim().min(3).max(LIMITS.contactPointValue).describe('Email address (or messenger handle with contact_point_type messenger)'),
  contact_point_type: z.enum(INPUT_CONTACT_POINT_TYPES).default('email').describe('How the person is invited and identified: `email` (default) or `messenger`'),
});
/** A named party as the catalog's NamedPartyInput takes it. */
export const partyInput = (input: z.infer<typeof namedParty>) => ({ displayName: input.display_name, contactPointValue: input.contact_point_value, contactPointType: input.contact_point_type });
/** 1, 2 or 3 distinct signature methods per signer. */
export const methodCount = z
  .number()
  .int()
  .min(LIMITS.signatureMethods.min)
  .max(LIMITS.signatureMethods.max)
  .describe(`Distinct signature methods each signer must complete (${LIMITS.signatureMethods.min}..${LIMITS.signatureMethods.max})`);
export const methodType = z
  .enum(['email_otp', 'codehost_gist', 'microblog_post', 'forum_post', 'webauthn_passkey', 'messenger', 'api_key'])
  .describe('The signature method');

// Output schemas: the fields clients rely on, open to more.
export const nextAction = z
  .object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()), description: z.string() })
  .nullable()
  .describe('The tool to call next and its arguments');
export const humanStep = z.string().nullable().describe('What the human must do before the next call, when anything');
const signatureState = z.looseObject({ status: z.string(), satisfied_method_count: z.number(), can_finalize: z.boolean() }).nullable();
export const identicon = z.looseObject({ kind: z.string(), digest: z.string(), short_hash: z.string(), width: z.number(), height: z.number(), alt_text: z.string() });
const agreement = z.looseObject({
  id: z.string(),
  agr_reference: z.string(),
  type: z.string(),
  status: z.string(),
  title: z.string().nullable(),
  body: z.string(),
  current_version: z.number(),
  required_signature_method_count: z.number(),
  parties: z.array(z.looseObject({ id: z.string(), role: z.string(), display_name: z.string().nullable(), signature_state: signatureState.optional() })),
  initiator_signature: signatureState,
  sealed_at: z.string().nullable(),
});
export const recordOutput = z.object({
  agr_reference: z.string(),
  status: z.string(),
  agreement_version: z.number().int(),
  initiator_signature: signatureState,
  available_actions: z.array(z.enum(RECORD_ACTIONS)).describe('The moves the caller may make on the record now; previews refuse any other'),
  next_action: nextAction,
  human_step: humanStep,
  agreement,
});
export const executionOutput = z.object({
  agr_reference: z.string(),
  can_finalize: z.boolean(),
  initiator_signature: signatureState,
  next_action: nextAction,
  human_step: humanStep,
  signature_execution: z.looseObject({
    id: z.string(),
    record_version: z.number(),
    status: z.string(),
    required_signature_method_count: z.number(),
    satisfied_method_count: z.number(),
    can_finalize: z.boolean(),
    methods: z.array(z.looseObject({ method_type: z.string(), status: z.string() })),
  }),
});
