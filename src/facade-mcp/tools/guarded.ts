import { z } from 'zod';
import { scopeOf } from '../../domain/identity/operation-access.js';
import { credentialKey, type Principal, type Scope } from '../../domain/identity/principal.js';
import { catalog, runEntry, type AnyCatalogEntry, type Graph } from '../../graph/catalog/index.js';
import type { RecordFieldsFragment } from '../../graph/catalog/generated.js';
import { ToolError, type RetryAction } from '../errors.js';
import { recordGuidance } from '../next-action.js';
import { recordResult } from '../views.js';
import { humanStep, nextAction, READ, recordOutput, tool, type ToolAnnotations, type ToolContext, type ToolDefinition } from '../tool.js';

const { records } = catalog;

/**
 * One guarded action: a preview that says what would change and issues a confirmation token, and
 * an execute tool that needs that token with identical target arguments and the same version.
 */
export type GuardedAction<S extends z.ZodObject> = {
  preview: string;
  execute: string;
  title: string;
  /** What the action does (both tools' descriptions start with it). */
  purpose: string;
  input: S;
  annotations: ToolAnnotations;
  /** The catalog operation the arguments select (its declared scope is the token's scope). */
  operation(args: z.infer<S>): AnyCatalogEntry;
  operations: readonly AnyCatalogEntry[];
  /** What inside the record the action touches; throws (not_found, conflict) when it does not apply. */
  target(args: z.infer<S>, record: RecordFieldsFragment): string;
  /** What would change, in the product's words, for the human. */
  changes(args: z.infer<S>, record: RecordFieldsFragment): string[];
  run(args: z.infer<S>, graph: Graph, record: RecordFieldsFragment): Promise<RecordFieldsFragment>;
};


/** The caller must hold the scope the action needs before anything is previewed. */
function requireScopeOf(operation: AnyCatalogEntry, principal: Principal | null): string {
  const scope = scopeOf(operation.name);
  if (!scope) throw new Error(`guarded action ${operation.name} has no scope`);
  if (!principal) throw ToolError.of('auth_required', 'Authentication required', { required_scopes: [scope], retry_action: { tool: 'get_authentication_status', arguments: {} } });
  if (!principal.scopes.includes(scope)) throw ToolError.of('missing_scope', `This credential lacks the '${scope}' scope`, { required_scopes: [scope] });
  return scope;
}

const CONFIRMATION_ARGUMENTS = ['confirmation_token', 'agreement_version'] as const;

/** The target arguments: everything but the confirmation and the version. */
function targetArguments(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([key]) => !(CONFIRMATION_ARGUMENTS as readonly string[]).includes(key)));
}

export function guarded<S extends z.ZodObject>(action: GuardedAction<S>): [ToolDefinition, ToolDefinition] {
  const again = (args: Record<string, unknown>): RetryAction => ({ tool: action.preview, arguments: targetArguments(args) });
  const bindingOf = async (args: z.infer<S>, { graph, principal }: ToolContext) => {
    const record = await runEntry(graph, records.get, { id: String(args.agr_reference), withSvg: false });
    const operation = action.operation(args);
    const scope = requireScopeOf(operation, principal);
    const target = action.target(args, record);
    return { record, binding: { principal: credentialKey(principal), action: action.execute, scope, record: record.id, target, arguments: targetArguments(args) } };
  };

  // A preview reads the record (retrieve); both need the scope the arguments' operation is declared with.
  const scopesFor = (args: Record<string, unknown>): Scope[] => ['retrieve', ...[scopeOf(action.operation(args as z.infer<S>).name)].filter((scope): scope is Scope => scope !== null)];
  const preview = tool({
    name: action.preview,
    scopesFor,
    title: `Preview: ${action.title}`,
    description: `${action.purpose} Preview only (it reads the record, so it needs the \`retrieve\` scope too): changes nothing, answers what would change and a short-lived, single-use \`confirmation_token\` with the \`agreement_version\`. Show the human what changes; only with their explicit consent call ${action.execute} with the same arguments plus both values.`,
    input: action.input,
    output: z.object({
      agr_reference: z.string(),
      agreement_version: z.number().int(),
      status: z.string(),
      action: z.string(),
      what_changes: z.array(z.string()),
      confirmation_token: z.string(),
      expires_at: z.string(),
      next_action: nextAction,
      human_step: humanStep,
    }),
    annotations: READ,
    operations: [records.get, ...action.operations],
    recovery: (code, args) => (code === 'conflict' ? { tool: 'get_agreement', arguments: { agr_reference: args.agr_reference } } : null),
    run: async (args, context) => {
      const { record, binding } = await bindingOf(args, context);
      const changes = action.changes(args, record);
      const issued = await context.confirmations.issue({ ...binding, recordVersion: record.currentVersion });
      return {
        structured: {
          agr_reference: record.agrReference,
          agreement_version: record.currentVersion,
          status: record.status,
          action: action.execute,
          what_changes: changes,
          confirmation_token: issued.token,
          expires_at: issued.expiresAt.toISOString(),
          next_action: {
            tool: action.execute,
            arguments: { ...targetArguments(args), confirmation_token: issued.token, agreement_version: record.currentVersion },
            description: 'Execute exactly what was previewed, once the human agreed.',
          },
          human_step: `Show the human what changes (${changes.join(' ')}) and ask for explicit consent before calling ${action.execute}.`,
        },
      };
    },
  });

  const execute = tool({
    name: action.execute,
    scopesFor,
    title: action.title,
    description: `${action.purpose} Guarded: call ${action.preview} first, then this tool with identical arguments plus its \`confirmation_token\` and \`agreement_version\`. Without a token it answers \`confirmation_required\`; a spent, foreign or mismatched token \`stale_confirmation_token\`; an old one \`expired\`; a record that changed since the preview \`conflict\`. Then preview again.`,
    input: action.input.extend({
      confirmation_token: z.string().min(1).max(200).optional().describe(`From ${action.preview}`),
      agreement_version: z.number().int().min(1).optional().describe(`The agreement_version ${action.preview} answered`),
    }),
    output: recordOutput,
    annotations: action.annotations,
    operations: action.operations,
    recovery: (code, args) => (['conflict', 'expired', 'stale_confirmation_token', 'confirmation_required'].includes(code) ? again(args) : null),
    run: async (args, context) => {
      const token = args.confirmation_token as string | undefined;
      const version = args.agreement_version as number | undefined;
      if (!token) {
        throw ToolError.of('confirmation_required', `Call ${action.preview} first and pass its confirmation_token and agreement_version`, { retry_action: again(args) });
      }
      if (version === undefined) {
        throw ToolError.of('validation_error', 'agreement_version is required with a confirmation_token', {
          issues: [{ path: ['agreement_version'], message: 'Required with confirmation_token', type: 'missing' }],
          retry_action: again(args),
        });
      }
      const { record, binding } = await bindingOf(args as z.infer<S>, context);
      if (record.currentVersion !== version) {
        throw ToolError.of('conflict', `${record.agrReference} is at version ${record.currentVersion}, not ${version}: preview again`, { retry_action: again(args) });
      }
      const refusal = await context.confirmations.redeem(token, { ...binding, recordVersion: version });
      if (refusal === 'expired') throw ToolError.of('expired', 'The confirmation token has expired: preview again', { retry_action: again(args) });
      if (refusal === 'version_changed') throw ToolError.of('conflict', 'The record changed since the preview: preview again', { retry_action: again(args) });
      if (refusal === 'stale') {
        throw ToolError.of('stale_confirmation_token', 'The confirmation token is not valid for this caller, record, target and arguments, or was already used: preview again', { retry_action: again(args) });
      }
      const changed = await action.run(args as z.infer<S>, context.graph, record);
      return { structured: recordResult(changed, recordGuidance(changed)) };
    },
  });
  return [preview, execute];
}
