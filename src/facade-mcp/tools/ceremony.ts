import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isSecretInputMethod } from '../../domain/mcp/secret-inputs.js';
import { catalog, runEntry, type Graph } from '../../graph/catalog/index.js';
import type { RecordFieldsFragment, SignatureExecutionFieldsFragment, SignatureMethodType } from '../../graph/catalog/generated.js';
import { operationFailure } from '../../graph/transport/failure.js';
import { executionGuidance, recordGuidance } from '../next-action.js';
import { ToolError } from '../errors.js';
import { executionResult, recordResult } from '../views.js';
import { agrReference, executionOutput, methodType, OUTREACH, recordOutput, RESUME, tool, urlOnlyRefusal, type ToolContext, type ToolDefinition, type ToolOutput } from '../tool.js';

const { ceremony, records } = catalog;

/**
 * The record as the signer sees it, for the reference and initiator state of a ceremony answer; a
 * caller without `retrieve` still gets the ceremony's answer (with the reference it gave).
 */
async function recordIfReadable(graph: Graph, reference: string): Promise<RecordFieldsFragment | null> {
  try {
    return await runEntry(graph, records.get, { id: reference, withSvg: false });
  } catch (error) {
    if (operationFailure(error)?.code === 'missing_scope') return null;
    throw error;
  }
}

async function answer(graph: Graph, reference: string, execution: SignatureExecutionFieldsFragment, secretInput: ToolContext['secretInput']['mode'] = 'argument'): Promise<ToolOutput> {
  const record = await recordIfReadable(graph, reference);
  const guidance = executionGuidance(record?.agrReference ?? reference, execution, record?.onChainIncludeVerifiedParties ?? false, secretInput);
  return { structured: executionResult(record?.agrReference ?? reference, execution, record?.initiatorSignature ?? null, guidance) };
}

const method = z.strictObject({ agr_reference: agrReference, method_type: methodType });

/**
 * Under MCP_SECRET_INPUT=url_only a secret input is never a tool argument, and a client without
 * URL-mode elicitation cannot use those methods: said before anything is mailed or submitted.
 */
function refuseSecretArgument(type: string, { secretInput }: ToolContext, path: string, given: boolean): void {
  if (!isSecretInputMethod(type) || secretInput.policy !== 'url_only' || (secretInput.mode === 'url' && !given)) return;
  const message = urlOnlyRefusal(`${type}'s secret input`, secretInput.mode, { tool: 'submit_signature_method_input', without: path });
  throw ToolError.of('validation_error', message, { issues: [{ path: [path], message, type: 'url_elicitation_required' }] });
}

/**
 * A session whose client takes URL-mode elicitation: the human gives the secret input on the
 * service's page, never to the assistant. While the method is pending the call answers the protocol's
 * URLElicitationRequiredError (-32042) with the page's link; the client shows it, and calls again
 * once the human is done (then the method is satisfied and the call answers the execution).
 */
async function throughPage(args: { agr_reference: string; method_type: string }, { graph }: ToolContext): Promise<ToolOutput> {
  const opened = await runEntry(graph, ceremony.openSecretInput, { recordId: args.agr_reference, methodType: args.method_type as SignatureMethodType, withSvg: false });
  if (!opened.link) return answer(graph, args.agr_reference, opened.execution, 'url');
  const what = args.method_type === 'email_otp' ? 'enter the signature code mailed to you' : 'confirm with your passkey';
  throw new UrlElicitationRequiredError(
    [{ mode: 'url', elicitationId: opened.link.elicitationId, url: opened.link.url, message: `Open this page of the record signing service to ${what} for ${args.agr_reference}; the assistant never sees it. Come back when the page says done.` }],
    `The human gives this input on the service's page (URL-mode elicitation); call submit_signature_method_input again with the same arguments once they are done`,
  );
}
const target = (args: { agr_reference: string; method_type: string }) => ({ recordId: args.agr_reference, methodType: args.method_type as SignatureMethodType, withSvg: false });

/**
 * The signature ceremony: the human proves intent for one record version with 1..3 distinct methods,
 * then finalizes. Authentication (API key, sign-in code) never satisfies a method or finalizes.
 */
export const ceremonyTools: ToolDefinition[] = [
  tool({
    name: 'start_or_resume_signature_execution',
    title: 'Start or resume signing',
    description:
      'Starts, or resumes, the caller\'s signature execution for the current version of a record (as initiator or as an invited participant). Answers the methods available, how many distinct methods are required, and `can_finalize`. Needs the `verify` scope.',
    input: z.strictObject({ agr_reference: agrReference }),
    output: executionOutput,
    annotations: RESUME,
    operations: [ceremony.startExecution],
    run: async (args, { graph }) => answer(graph, args.agr_reference, await runEntry(graph, ceremony.startExecution, { recordId: args.agr_reference, recordType: null, withSvg: false })),
  }),
  tool({
    name: 'start_signature_method',
    title: 'Start a signature method',
    description:
      'Starts one signature method of the execution and answers its step for the human: `email_otp` mails a signature code (not a sign-in code); `codehost_gist`, `microblog_post` and `forum_post` give a proof text to publish (optional `handle`); `messenger` gives a challenge; `webauthn_passkey` gives the options for the authenticator. Give the human the step exactly; they act themselves. Needs the `verify` scope.',
    input: method.extend({ handle: z.string().trim().min(1).max(100).optional().describe('Public proof posts: the human\'s account handle') }),
    output: executionOutput,
    annotations: OUTREACH,
    operations: [ceremony.startMethod],
    run: async (args, context) => {
      refuseSecretArgument(args.method_type, context, 'method_type', false);
      const execution = await runEntry(context.graph, ceremony.startMethod, { ...target(args), input: args.handle ? { handle: args.handle } : null });
      return answer(context.graph, args.agr_reference, execution, context.secretInput.mode);
    },
  }),
  tool({
    name: 'submit_signature_method_input',
    title: 'Submit a signature method\'s input',
    description:
      'Submits what the human provided for a started method: `code` (the six-digit signature code of email_otp), `url` (the public proof post\'s URL) or `credential` (the passkey authenticator response). When this client takes URL-mode elicitation, call it for email_otp or webauthn_passkey without `code` or `credential`: the human enters them on the service\'s page (the call answers a URL elicitation), and the assistant never sees them; call it again once they are done. Sign-in codes and signature codes are not interchangeable. Needs the `verify` scope.',
    input: method.extend({
      code: z.string().regex(/^\d{6}$/, 'six digits').optional().describe('email_otp: the six-digit signature code the human received (not a sign-in code)'),
      url: z.url().max(2000).optional().describe('codehost_gist, microblog_post, forum_post: the URL of the public post the human made with the proof text'),
      credential: z.record(z.string(), z.unknown()).optional().describe('webauthn_passkey: the authenticator response as JSON'),
    }),
    output: executionOutput,
    annotations: OUTREACH,
    operations: [ceremony.submitMethod],
    run: async (args, context) => {
      const secret = args.method_type === 'email_otp' ? args.code : args.method_type === 'webauthn_passkey' ? args.credential : undefined;
      if (isSecretInputMethod(args.method_type)) {
        refuseSecretArgument(args.method_type, context, args.method_type === 'email_otp' ? 'code' : 'credential', secret !== undefined);
        if (secret === undefined && context.secretInput.mode === 'url') return throughPage(args, context);
      }
      const input = { code: args.code ?? null, url: args.url ?? null, credential: args.credential ?? null };
      return answer(context.graph, args.agr_reference, await runEntry(context.graph, ceremony.submitMethod, { ...target(args), input }), context.secretInput.mode);
    },
  }),
  tool({
    name: 'refresh_signature_method',
    title: 'Check a pending method again',
    description:
      'Checks an asynchronous method again while it is pending (a public proof post, a messenger reply) and answers the execution. Needs the `verify` scope.',
    input: method,
    output: executionOutput,
    annotations: { ...RESUME, openWorldHint: true },
    operations: [ceremony.refreshMethod],
    run: async (args, { graph }) => answer(graph, args.agr_reference, await runEntry(graph, ceremony.refreshMethod, target(args))),
  }),
  tool({
    name: 'finalize_signature_execution',
    title: 'Finalize the signature',
    description:
      'Finalizes the caller\'s signature once `can_finalize` is true (the required number of distinct methods is satisfied), after the human confirmed they intend to sign this version. When the record publishes verified party details on chain, `acknowledge_public_verified_parties` must be true (the human\'s explicit acknowledgement). The last signature seals the record. Needs the `verify` scope.',
    input: z.strictObject({
      agr_reference: agrReference,
      acknowledge_public_verified_parties: z
        .boolean()
        .optional()
        .describe('true: the human explicitly accepts that their verified party details are published on chain (required when the record publishes them)'),
    }),
    output: recordOutput,
    annotations: OUTREACH,
    operations: [ceremony.finalize],
    run: async (args, { graph }) => {
      const record = await runEntry(graph, ceremony.finalize, {
        recordId: args.agr_reference,
        recordType: null,
        withSvg: false,
        input: { acknowledgePublicVerifiedParties: args.acknowledge_public_verified_parties ?? null },
      });
      return { structured: recordResult(record, recordGuidance(record)) };
    },
  }),
];
