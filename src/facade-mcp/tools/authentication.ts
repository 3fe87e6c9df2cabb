import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { catalog, runEntry } from '../../graph/catalog/index.js';
import { ToolError } from '../errors.js';
import { humanStep, MORE_THAN_RETRIEVE, nextAction, READ, tool, urlOnlyRefusal, WRITE, OUTREACH, type ToolContext, type ToolDefinition } from '../tool.js';

const { identity } = catalog;

type Grant = { authenticated: boolean; scopes: string[]; expiresIn: number; sessionBound: boolean; transportToken?: string | null };

const granted = (grant: Grant) => ({
  structured: {
    authenticated: grant.authenticated,
    scopes: grant.scopes,
    expires_in: grant.expiresIn,
    session_bound: grant.sessionBound,
    transport_token: grant.transportToken ?? null,
    next_action: { tool: 'list_agreements', arguments: {}, description: 'List the human\'s records.' },
    human_step: null,
  },
});

const invalid = (path: string, message: string, type: string) => ToolError.of('validation_error', message, { issues: [{ path: [path], message, type }] });

/**
 * A client with URL-mode elicitation: the human enters the sign-in code on the service's page, which
 * opens this session's grant; the call answers the page's link (-32042) until they did, then the grant.
 */
async function signInThroughPage(args: { verification_event_id: string; manual_transport_token: boolean }, { graph }: ToolContext) {
  if (args.manual_transport_token) {
    throw invalid('manual_transport_token', 'A sign-in through the service\'s page grants this MCP session only: keep the Mcp-Session-Id (a transport token is never shown on the page)', 'not_with_url_mode');
  }
  const opened = await runEntry(graph, identity.openSignInPage, { verificationEventId: args.verification_event_id });
  if (opened.grant) return granted(opened.grant);
  throw new UrlElicitationRequiredError(
    [{ mode: 'url', elicitationId: opened.link!.elicitationId, url: opened.link!.url, message: 'Open this page of the record signing service to enter the sign-in code mailed to you; the assistant never sees it. Come back when the page says done.' }],
    'The human enters the sign-in code on the service\'s page (URL-mode elicitation); call verify_authentication_otp again with the same arguments once they are done',
  );
}

/** Who the caller is on /mcp, and the email one-time-code sign-in that grants `retrieve` on this session. */
export const authenticationTools: ToolDefinition[] = [
  tool({
    name: 'get_authentication_status',
    title: 'Authentication status',
    description:
      'Tells whether this MCP connection is authenticated, with which scopes and how: `api_key` (transport Authorization: Bearer with an API key; scopes as the key\'s), `mcp_otp` (an email code grant: retrieve only, at most 600 seconds) or none. `session_bound` is true when the grant rides on this MCP session. `secret_input` says how this session gives signature codes and passkey responses: `url` (the human enters them on the service\'s page; this client declared URL-mode elicitation) or `argument` (the human gives them to you for submit_signature_method_input). Authentication never signs anything.',
    input: z.strictObject({}),
    output: z.object({
      authenticated: z.boolean(),
      scopes: z.array(z.string()),
      auth_method: z.string().nullable(),
      session_bound: z.boolean(),
      secret_input: z.enum(['url', 'argument']),
      next_action: nextAction,
      human_step: humanStep,
    }),
    annotations: READ,
    operations: [identity.authenticationStatus],
    run: async (_args, { graph, secretInput }) => {
      const status = await runEntry(graph, identity.authenticationStatus, {});
      return {
        structured: {
          authenticated: status.authenticated,
          scopes: status.scopes,
          auth_method: status.authMethod ?? null,
          session_bound: status.sessionBound,
          secret_input: secretInput.mode,
          next_action: status.authenticated ? null : { tool: 'request_authentication_otp', arguments: { email: '<the human\'s email address>' }, description: 'Sign in with an email code to read your records (retrieve only).' },
          human_step: status.authenticated
            ? null
            : `To read private records, ask the human for their email address; public verification needs no sign-in. To create, sign or change records: ${MORE_THAN_RETRIEVE}`,
        },
      };
    },
  }),
  tool({
    name: 'request_authentication_otp',
    title: 'Request a sign-in code',
    description:
      'Mails a six-digit sign-in code to the human\'s email address (purpose `authenticate`). The code is never returned here: the human reads it from their mail and gives it to you for verify_authentication_otp (or, when this client takes URL-mode elicitation, enters it on the service\'s page). A sign-in code is not a signature code and cannot sign anything.',
    input: z.strictObject({ email: z.email().max(320).describe('The human\'s email address') }),
    output: z.object({ verification_event_id: z.string(), expires_at: z.string(), next_action: nextAction, human_step: humanStep }),
    annotations: OUTREACH,
    operations: [identity.requestOtp],
    run: async ({ email }, { graph, secretInput }) => {
      if (secretInput.policy === 'url_only' && secretInput.mode !== 'url') {
        const message = urlOnlyRefusal('sign-in codes', secretInput.mode, { tool: 'verify_authentication_otp', without: 'code' });
        throw ToolError.of('validation_error', message, { issues: [{ path: [], message, type: 'url_elicitation_required' }] });
      }
      const issued = await runEntry(graph, identity.requestOtp, { input: { email, purpose: 'authenticate' } });
      const throughPage = secretInput.mode === 'url';
      return {
        structured: {
          verification_event_id: issued.verificationEventId,
          expires_at: issued.expiresAt,
          next_action: throughPage
            ? { tool: 'verify_authentication_otp', arguments: { verification_event_id: issued.verificationEventId }, description: 'Call it as it is: it answers a page of the service where the human enters the code; call it again once they are done.' }
            : { tool: 'verify_authentication_otp', arguments: { verification_event_id: issued.verificationEventId, code: '<six-digit code from the human>' }, description: 'Verify the code the human read from their mail.' },
          human_step: throughPage
            ? 'The human enters the sign-in code mailed to them on the service\'s page that your client opens. Never ask them for the code.'
            : 'Ask the human for the six-digit sign-in code just mailed to them.',
        },
      };
    },
  }),
  tool({
    name: 'verify_authentication_otp',
    title: 'Verify the sign-in code',
    description:
      'Verifies the six-digit sign-in code and grants this MCP session the `retrieve` scope (read and list the human\'s records) for at most 600 seconds; nothing more. When this client takes URL-mode elicitation, call it without `code`: the human enters the code on the service\'s page (the call answers a URL elicitation) and you call it again once they are done. Set `manual_transport_token` only when your client cannot keep the Mcp-Session-Id between calls: the returned token (same lifetime) is then sent as `Authorization: Bearer` on /mcp and nowhere else.',
    input: z.strictObject({
      verification_event_id: z.uuid().describe('From request_authentication_otp'),
      code: z
        .string()
        .regex(/^\d{6}$/, 'six digits')
        .optional()
        .describe('The six-digit code the human read from their mail; omitted when this client takes URL-mode elicitation (the human enters it on the service\'s page)'),
      manual_transport_token: z.boolean().default(false).describe('Return a manual transport token for a client that cannot keep session state'),
    }),
    output: z.object({
      authenticated: z.boolean(),
      scopes: z.array(z.string()),
      expires_in: z.number().int(),
      session_bound: z.boolean(),
      transport_token: z.string().nullable(),
      next_action: nextAction,
      human_step: humanStep,
    }),
    annotations: WRITE,
    operations: [identity.openMcpGrant, identity.openSignInPage],
    run: async (args, context) => {
      if (args.code !== undefined && context.secretInput.policy === 'url_only') {
        throw invalid('code', urlOnlyRefusal('sign-in codes', context.secretInput.mode, { tool: 'verify_authentication_otp', without: 'code' }), 'url_elicitation_required');
      }
      if (args.code === undefined) {
        if (context.secretInput.mode === 'url') return signInThroughPage(args, context);
        throw invalid('code', 'The six-digit sign-in code the human read from their mail is required', 'required');
      }
      const grant = await runEntry(context.graph, identity.openMcpGrant, {
        input: { verificationEventId: args.verification_event_id, code: args.code, manualTransportToken: args.manual_transport_token },
      });
      return granted(grant);
    },
  }),
];
