import type { IncomingMessage } from 'node:http';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import type { NextFunction, Request, Response } from 'express';
import { documentTooDeep } from './document-shape.js';
import type { ClientBudget } from './transport/client-budget.js';
import { sendGraphqlRefusal } from './transport/refusal.js';
import { reportQuota } from '../domain/shared/quotas.js';
import { DomainError } from '../domain/shared/errors.js';

/**
 * What one GraphQL operation may ask for, checked before anything runs (parse and validation):
 * an anonymous caller cannot buy unbounded work with aliases, depth, size or directives. The
 * largest REST facade document stays well inside these limits (the e2e suite runs all of them).
 */
const GRAPHQL_LIMITS = {
  maxTokens: 2000,
  maxDepth: 15,
  maxAliases: 15,
  maxDirectives: 50,
  maxCost: 5000,
} as const;

export function graphArmor<Context extends BaseContext>(options: {
  introspection: boolean;
}): { plugins: ApolloServerPlugin<Context>[]; validationRules: ValidationRule[]; parseOptions: { maxTokens: number } } {
  const armor = new ApolloArmor({
    // Tokens are counted by graphql-js's own parser (parseOptions): a clean 400, where the armor's parse hook answers 500.
    maxTokens: { enabled: false },
    // Introspection counts too (a standard introspection query is about 13 deep).
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, flattenFragments: true, ignoreIntrospection: false },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost },
    // Suggestions ("did you mean ...") reveal the schema when introspection is off.
    blockFieldSuggestion: { enabled: !options.introspection },
  });
  const { plugins, validationRules } = armor.protect();
  // The armor's typings name the CommonJS build of @apollo/server; the plugins are the same objects.
  return {
    plugins: plugins as unknown as ApolloServerPlugin<Context>[],
    validationRules: options.introspection ? validationRules : [...validationRules, noIntrospection],
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
  };
}

/** Refuses `__schema` and `__type` (not `__typename`) when a deployment turns introspection off. */
const noIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(new GraphQLError('GraphQL introspection is disabled on this service', { nodes: [node] }));
    }
  },
});

/**
 * `/graphql` over HTTP: a document nested deeper than any valid one is refused before Apollo parses
 * and validates it (400, `graphql_parse_failed`, as Apollo answers a syntax error).
 */
export function refuseDeepDocuments(req: Request, res: Response, next: NextFunction): void {
  const body = req.body as { query?: unknown } | undefined;
  const query = typeof body?.query === 'string' ? body.query : typeof req.query.query === 'string' ? req.query.query : null;
  const refusal = query === null ? null : documentTooDeep(query);
  if (!refusal) return next();
  sendGraphqlRefusal(res, 400, refusal.message, { code: 'graphql_parse_failed' });
}

/**
 * A graphql-ws operation's document, checked as `/graphql` checks one over HTTP (nesting, tokens,
 * then every validation rule with the armor's), or the refusal with the codes Apollo gives the same
 * mistakes: `GRAPHQL_PARSE_FAILED` and `GRAPHQL_VALIDATION_FAILED` (the client's errors, never logged
 * as the service's).
 */
export function checkedDocument(
  schema: GraphQLSchema,
  payload: { query: string; operationName?: string | null; variables?: Record<string, unknown> | null },
  armor: { validationRules: readonly ValidationRule[]; parseOptions: { maxTokens: number } },
): GraphQLError[] | { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null; variableValues?: Record<string, unknown> | null } {
  const tooDeep = documentTooDeep(payload.query);
  if (tooDeep) return [tooDeep];
  let document: DocumentNode;
  try {
    document = parse(payload.query, armor.parseOptions);
  } catch (error) {
    return [withCode(error instanceof GraphQLError ? error : new GraphQLError(String(error)), 'GRAPHQL_PARSE_FAILED')];
  }
  const errors = validate(schema, document, [...specifiedRules, ...armor.validationRules]);
  if (errors.length > 0) return errors.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED'));
  return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code },
  });
}

/**
 * `/graphql` over HTTP: each request is one operation of the client's per-minute budget (see
 * ClientBudget); past it, 429 `rate_limited` with Retry-After, before the document is parsed. The
 * quota goes out in the RateLimit header fields.
 */
export function graphqlBudget(budget: ClientBudget): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    // Taken already when the request was looked at before express (a kept read that was not kept).
    const { admitted, quota } = takenBudgets.get(req) ?? budget.take(req.ip ?? 'unknown');
    reportQuota({ policy: 'graphql', ...quota });
    if (admitted) return next();
    sendGraphqlRefusal(res, 429, OVER_BUDGET, { code: 'rate_limited', retryAfterSeconds: quota.resetSeconds });
  };
}

/** Budgets taken for a request before express (graphql-http.ts's kept reads), which graphqlBudget then does not take again. */
export const takenBudgets = new WeakMap<IncomingMessage, ReturnType<ClientBudget['take']>>();

const OVER_BUDGET = 'Too many GraphQL operations from this network address; try again shortly';

/** The refusal of a graphql-ws operation past its client's budget (the socket stays open). */
export function budgetRefusal(retryAfterSeconds: number): GraphQLError {
  return new GraphQLError(OVER_BUDGET, { originalError: new DomainError('rate_limited', OVER_BUDGET, { retryAfterSeconds }) });
}
