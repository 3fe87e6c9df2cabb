import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import { HeaderMap, type ApolloServer, type HTTPGraphQLResponse } from '@apollo/server';
import { Kind, OperationTypeNode, parse, type DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { credentialKey, type Principal } from '../../domain/identity/principal.js';
import type { AnswerCache } from '../../domain/shared/answer-cache.js';
import type { Instruments } from '../../domain/shared/instruments.js';
import type { GraphContext } from '../context.js';
import { documentTooDeep } from '../document-shape.js';
import type { EarlyAnswers, EarlyHandler } from './early-answers.js';
import { rateLimitHeaders } from '../../domain/shared/quotas.js';
import { takenBudgets } from '../armor.js';
import { preReadable, readSmallJsonBody } from './body-limits.js';
import type { ClientBudget } from './client-budget.js';

/** A GraphQL answer kept as Apollo sent it, with the operation name the metrics count it under. */
export type KeptGraphqlAnswer = { headers: [string, string][]; body: Buffer; operationName: string | null };

/**
 * The root fields whose answers change only with what drops the record views (read-caches.ts): a
 * query that selects nothing else is a record read, and its answer is kept as sent for its credential.
 */
const KEPT_ROOT_FIELDS = new Set(['record', '__typename']);

export type GraphqlOverHttp = {
  apollo: ApolloServer<GraphContext>;
  /** The principal of the request's credentials (throws when they do not check out). */
  authenticate: (headers: IncomingHttpHeaders) => Promise<Principal | null>;
  /** The context of an operation, for its principal. */
  context: (req: Request, principal: Principal | null) => GraphContext;
  /** Record reads' answers kept as sent (none: every operation is executed). */
  kept?: AnswerCache<KeptGraphqlAnswer> | null;
  instruments?: Instruments;
};

/**
 * Apollo on express (what @as-integrations/express5 does), with one thing more: a record read's
 * answer is kept as the bytes Apollo sent, per credential, Accept header and request (document,
 * operation name and variables), and dropped with the record views. A kept answer is sent without
 * Apollo's request pipeline; it is still budgeted, authenticated (the credential epoch included),
 * logged and counted, as every request is. Only a complete 200 answer without errors is kept.
 */
export function graphqlOverHttp(deps: GraphqlOverHttp): (req: Request, res: Response) => Promise<void> {
  const { apollo, kept } = deps;
  return async (req, res) => {
    // Looked up already when the request came (keptGraphqlReadsEarly), and not kept then.
    const early = earlyKeys.get(req);
    const keyed = early ?? (kept ? await keptKey(req, deps.authenticate) : null);
    if (kept && keyed && !early) {
      const answer = kept.peek(keyed.key);
      if (answer) {
        deps.instruments?.graphqlOperation(answer.operationName, 'graphql', 'ok');
        for (const [name, value] of answer.headers) res.setHeader(name, value);
        // The bytes as express's `send` wrote them (no ETag: the app sets none).
        res.statusCode = 200;
        res.setHeader('Content-Length', answer.body.length);
        res.end(answer.body);
        return;
      }
    }
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const query = req.url.indexOf('?');
    const execute = () =>
      apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: query < 0 ? '' : req.url.slice(query), body: req.body as unknown },
        // Authenticated once: the kept answer's lookup already asked.
        context: async () => deps.context(req, keyed ? keyed.principal : await deps.authenticate(req.headers)),
      });
    const keep = (response: HTTPGraphQLResponse): KeptGraphqlAnswer | null => {
      if ((response.status ?? 200) !== 200 || response.body.kind !== 'complete' || !keyed) return null;
      const result = JSON.parse(response.body.string) as { errors?: unknown; data?: unknown };
      return result.errors === undefined && result.data != null ? { headers: [...response.headers], body: Buffer.from(response.body.string), operationName: keyed.operationName } : null;
    };
    // Kept only when no invalidation came while it was executed (AnswerCache.remember).
    const response = kept && keyed ? await kept.remember(keyed.key, execute, keep) : await execute();
    for (const [name, value] of response.headers) res.setHeader(name, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.send(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };
}

type KeptKey = { key: string; principal: Principal; operationName: string | null };

/** Requests looked up before express and not kept: their key and principal, not asked for again. */
const earlyKeys = new WeakMap<IncomingMessage, KeptKey>();

/**
 * Kept record reads answered by the HTTP server before express, as the public record's are: a POST
 * of a small JSON document with credentials has its body read (body-limits.ts's pre-read, which the
 * route's parser then takes as its own), its operation budgeted (graphqlBudget does not take it again),
 * its credential checked and its answer looked up. Kept: sent with its RateLimit fields and what
 * express would add (EarlyAnswers.send), counted by operation. Anything else (not JSON, over budget,
 * not kept, an Idempotency-Key, credentials that do not check out) goes on to express as it would
 * have, its body, budget and principal already taken.
 */
export function keptGraphqlReadsEarly(deps: {
  kept: AnswerCache<KeptGraphqlAnswer>;
  budget: ClientBudget;
  clientAddressOf: (req: IncomingMessage) => string;
  authenticate: (headers: IncomingHttpHeaders) => Promise<Principal | null>;
  instruments?: Instruments;
  send: EarlyAnswers['send'];
}): EarlyHandler {
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const body = await readSmallJsonBody(req);
    if (body === undefined) return false;
    const taken = deps.budget.take(deps.clientAddressOf(req));
    takenBudgets.set(req, taken);
    if (!taken.admitted) return false;
    const keyed = await keptKey({ method: 'POST', headers: req.headers, body }, deps.authenticate);
    if (!keyed) return false;
    const kept = deps.kept.peek(keyed.key);
    if (!kept) {
      earlyKeys.set(req, keyed);
      return false;
    }
    deps.instruments?.graphqlOperation(kept.operationName, 'graphql', 'ok');
    const headers = { ...Object.fromEntries(kept.headers), ...rateLimitHeaders([{ policy: 'graphql', ...taken.quota }]) };
    deps.send(req, res, { route: '/graphql', status: 200, headers, body: kept.body });
    return true;
  };
  return (req, res, toExpress) => {
    if (req.method !== 'POST' || req.url !== '/graphql' || !preReadable(req)) return false;
    if (req.headers['idempotency-key'] !== undefined || (req.headers.authorization === undefined && req.headers['x-api-key'] === undefined)) return false;
    answer(req, res).then(
      (answered) => void (answered || toExpress()),
      // The request ended before its body did: nobody is left to answer.
      () => void res.destroy(),
    );
    return true;
  };
}

/** The key of a request whose answer may be kept (a POST with a JSON document and credentials), else null. */
async function keptKey(req: Pick<Request, 'method' | 'headers' | 'body'>, authenticate: (headers: IncomingHttpHeaders) => Promise<Principal | null>): Promise<KeptKey | null> {
  const body = req.body as { query?: unknown; operationName?: unknown; variables?: unknown; extensions?: unknown } | undefined;
  if (req.method !== 'POST' || typeof body?.query !== 'string' || body.extensions !== undefined) return null;
  if (req.headers.authorization === undefined && req.headers['x-api-key'] === undefined) return null;
  const operationName = typeof body.operationName === 'string' ? body.operationName : null;
  const shape = keptShape(body.query, operationName);
  if (!shape) return null;
  let principal: Principal | null;
  try {
    principal = await authenticate(req.headers);
  } catch {
    // Credentials that do not check out: Apollo's context answers them (authenticating again).
    return null;
  }
  if (!principal) return null;
  const key = `${credentialKey(principal)}\u0000${req.headers.accept ?? ''}\u0000${shape.document}\u0000${JSON.stringify(body.variables ?? null)}`;
  return { key, principal, operationName: shape.operationName };
}

/**
 * Whether a document's operation is a record read, by its text and operation name (documents up to
 * 16 KiB, 128 kept), with the hash that names the pair in a kept answer's key.
 */
type Shape = { operationName: string | null; document: string };
const shapes = new LRUCache<string, Shape | false>({ max: 128 });
const MAX_KEPT_DOCUMENT = 16 * 1024;

function keptShape(query: string, operationName: string | null): Shape | null {
  // Parsed here before the route's own checks run: a document too deep for them is not looked at.
  if (query.length > MAX_KEPT_DOCUMENT || documentTooDeep(query)) return null;
  const cacheKey = `${operationName ?? ''}\u0000${query}`;
  let shape = shapes.get(cacheKey);
  if (shape === undefined) {
    const read = recordRead(query, operationName);
    shape = read && { ...read, document: createHash('sha256').update(cacheKey).digest('base64url') };
    shapes.set(cacheKey, shape);
  }
  return shape || null;
}

function recordRead(query: string, operationName: string | null): { operationName: string | null } | false {
  let document: DocumentNode;
  try {
    document = parse(query, { noLocation: true });
  } catch {
    return false;
  }
  const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName === null ? (operations.length === 1 ? operations[0] : undefined) : operations.find((candidate) => candidate.name?.value === operationName);
  if (!operation || operation.operation !== OperationTypeNode.QUERY) return false;
  const rootsKept = operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && KEPT_ROOT_FIELDS.has(selection.name.value) && !selection.directives?.length);
  const recordSelected = operation.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && selection.name.value === 'record');
  return rootsKept && recordSelected ? { operationName: operation.name?.value ?? null } : false;
}
