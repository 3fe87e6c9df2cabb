import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { OpenAPIBackend, type Context, type Operation, type OpenAPIRouter } from 'openapi-backend';
import { freezeOperations } from './openapi-backend-patch.js';
import addFormats from 'ajv-formats';
import type { ErrorObject } from 'ajv';
import type { Logger } from 'pino';
import { DomainError } from '../domain/shared/errors.js';
import { credentialKey, type Principal } from '../domain/identity/principal.js';
import type { GraphContext } from '../graph/context.js';
import type { GraphExecutor } from '../graph/executor.js';
import { camelKeys } from '../graph/transport/case.js';
import { readCredentials } from '../graph/transport/credentials.js';
import { failureFromDomain, operationFailure } from '../graph/transport/failure.js';
import { restError, restErrorFromFailure, validationError, type RestError, type ValidationErrorItem } from './errors.js';
import { buildOpenApiDocument, type JsonObject } from './openapi/index.js';
import type { RestOperation, RestReply, RestServices } from './operation.js';
import { answerTooLarge, readJsonBody } from './body.js';
import { announcesMoreThan, BODY_LIMITS, refuseTooLarge } from '../graph/transport/body-limits.js';
import { RouteTable } from './route-table.js';
import { restRoutes } from './routes/index.js';
import { pruneToSchema } from './prune.js';
import { idempotently } from './idempotency.js';
import type { IdempotencyStore } from '../domain/idempotency/idempotency-store.js';
import type { AnswerCache } from '../domain/shared/answer-cache.js';
import { canonicalQuery, KEPT_PUBLIC_OPERATIONS, keptAnswerKey, type KeptAnswer } from './kept-public-answers.js';

export type RestFacadeDeps = {
  executor: GraphExecutor;
  authenticate: (credentials: { bearer?: string; apiKey?: string }) => Promise<Principal | null>;
  services: RestServices;
  /** Idempotency-Key on mutating routes (absent: the header is ignored). */
  idempotency?: IdempotencyStore;
  /**
   * Answers of the identity's listing kept as the bytes sent, per credential and query: a cached
   * page otherwise pays its GraphQL execution, key conversion and serialization on every request.
   * Dropped with the listing pages (the composition root invalidates both on the same signals).
   */
  listingAnswers?: AnswerCache<RestReply> | null;
  /** A record read's answers kept the same way, dropped with the record views (RECORD_CACHE_SECONDS). */
  recordAnswers?: AnswerCache<RestReply> | null;
  /**
   * Public answers kept as the bytes sent, per URL, while the domain keeps the view they show (`kept`,
   * by the record's reference); the HTTP server answers them before express (kept-public-answers.ts).
   */
  publicAnswers?: { bytes: AnswerCache<KeptAnswer>; kept: (reference: string) => boolean } | null;
  logger: Logger;
};

/** Routes whose 200 answers are kept as sent, per credential and query, and where. */
const KEPT_READS = new Map<string, (deps: RestFacadeDeps) => AnswerCache<RestReply> | null | undefined>([
  ['listIdentityAgreements', (deps) => deps.listingAnswers],
  ['getAgreement', (deps) => deps.recordAnswers],
]);

/**
 * `/api/v1` (and the meta routes) served from the OpenAPI document: routing through a route table
 * compiled once, contract validation with openapi-backend's precompiled validators, then one
 * GraphQL operation in-process per route.
 */
export async function createRestFacade(deps: RestFacadeDeps): Promise<express.Router> {
  const declared = restRoutes();
  const document = buildOpenApiDocument(declared);
  const schemas = document.components.schemas;
  // What each operationId runs, and the success status its contract declares.
  const operations = new Map(declared.map(({ spec, runs }) => [spec.id, { runs, status: spec.ok.status }]));
  const api = new OpenAPIBackend({
    definition: document as never,
    quick: true,
    // Validation runs in the handler, after authentication: an anonymous caller learns nothing from 422s.
    validate: () => false,
    ajvOpts: { allErrors: true },
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
  });
  // Credentials are checked before validation (below); the contract's security only says which apply.
  api.registerSecurityHandler('bearerAuth', () => true);
  api.registerSecurityHandler('apiKeyAuth', () => true);
  // Operations whose success answer is a record's state (the record, its signature execution), with
  // their status and the read that answers it: a lost answer is replayed from the state as it is now.
  const stateAnswers = new Map<string, { status: number; read: string }>();
  for (const item of Object.values(document.paths as Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>)) {
    for (const op of Object.values(item)) {
      const answer = op && typeof op === 'object' && op.operationId ? stateAnswerOf(op) : null;
      if (answer !== null) stateAnswers.set(op.operationId!, answer);
    }
  }
  const handlers = new Map<string, (c: Context, req: Request, principal: Principal | null) => Promise<RestReply | RestError>>();
  for (const [operationId, operation] of operations) {
    // Authenticated before the body was read (below); validated here: an anonymous caller learns nothing from a 422.
    handlers.set(operationId, async (c: Context, req: Request, principal: Principal | null) => {
      const validation = api.validator.validateRequest(c.request, c.operation as never);
      if (!validation.valid) return validationError(toValidationItems(validation.errors ?? []));
      const requestBody = (c.operation.requestBody as { content?: Record<string, { schema?: JsonObject }> } | undefined)?.content?.[
        'application/json'
      ]?.schema;
      const body = pruneToSchema(c.request.requestBody ?? {}, requestBody, schemas);
      const run = () => runOperation(operation, c, req, principal, camelKeys<Record<string, unknown>>(body ?? {}), deps);
      const keptPublic = KEPT_PUBLIC_OPERATIONS.get(operationId);
      if (deps.publicAnswers && keptPublic && req.method === 'GET') {
        const { bytes, kept } = deps.publicAnswers;
        const reference = (c.request.params as Record<string, string>)[keptPublic.reference] ?? '';
        const route = c.operation.path;
        // Kept after it is sent once, and only while the domain keeps the view it shows.
        const keep = (reply: RestReply | RestError): KeptAnswer | null =>
          reply.status === 200 && 'file' in reply && reply.file && kept(reference) ? { status: 200, headers: reply.headers ?? {}, file: reply.file, route } : null;
        return bytes.remember(keptAnswerKey(req.path, req.originalUrl), async () => asSentBytes(await run()), keep);
      }
      const keptReads = KEPT_READS.get(operationId)?.(deps);
      if (!keptReads || !principal) return run();
      // Per credential (another credential of the same identity may have other scopes) and the query, canonical.
      const key = `${operationId} ${credentialKey(principal)} ${req.path} ${canonicalQuery(req.originalUrl)}`;
      // Only a 200 is kept, as the bytes sent: a refusal or an error is answered afresh every time.
      return keptReads.get(key, async () => asSentBytes(await run()), (reply) => reply.status === 200 && reply.file !== undefined);
    });
  }
  await api.init();
  // The operation list is static: built once here, never per request (openapi-backend-patch.ts).
  const contractRouter = api.router as unknown as OpenAPIRouter;
  const compiled = freezeOperations(contractRouter);
  const routes = new RouteTable<Operation>(compiled);

  const router = express.Router();
  router.get('/api/openapi.json', (_req, res) => {
    res.json(document);
  });
  // In this order: announced body length (413, before anything waits on the body), route (404, 405), credentials (401, 403), guards,
  // body (415, 413, 400), Idempotency-Key (replay, 422, 409), contract (422), operation.
  router.use(async (req: Request, res: Response) => {
    if (announcesMoreThan(req, BODY_LIMITS.rest)) return refuseTooLarge(res, answerTooLarge);
    // A path that cannot be decoded is the client's mistake, whatever route it was meant for.
    if (!decodable(req.path)) return send(res, restError('malformed_request', 'Malformed percent-escape in the URL path'));
    const matched = routes.match(req.method, req.path);
    let principal: Principal | null = null;
    if (typeof matched === 'object' && 'operation' in matched) {
      const admitted = await admit(matched.operation, operations.get(matched.operation.operationId ?? '')?.runs, req, deps);
      if ('status' in admitted) return send(res, admitted);
      principal = admitted.principal;
    }
    const read = await readJsonBody(req, res, typeof matched === 'object' && 'operation' in matched ? textTypesOf(matched.operation) : []);
    if (read === 'answered') return;
    if ('status' in read) return send(res, read);
    if (matched === 'not_found') return send(res, restError('not_found', 'No such route'));
    if ('allowed' in matched) return send(res, { ...restError('method_not_allowed', `Method not allowed on this route (it allows ${matched.allowed.join(', ')})`), headers: { allow: matched.allowed.join(', ') } });
    const { operation } = matched;
    // The metrics count the request under its route template, never its ids.
    res.locals.route = operation.path;
    // A text body (a CSV file) is the operation's `text`; as the request's body it is what an Idempotency-Key's request is compared by.
    if (read.text !== undefined) textBodies.set(req, read.text);
    const request = { method: req.method, path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body: read.text ?? read.body };
    const handle = async () => {
      const context = { api, request: contractRouter.parseRequest(request, operation), operation } as unknown as Context;
      return (await handlers.get(operation.operationId ?? '')!(context, req, principal));
    };
    if (!deps.idempotency) return send(res, await handle());
    // A route that answers with a record's state answers a lost answer's replay with that state now.
    const replay = async (recordId: string): Promise<RestReply | null> => {
      const answer = stateAnswers.get(operation.operationId ?? '');
      if (!answer) return null;
      const read = { request: { params: { agr_id: recordId }, query: req.query }, operation: { operationId: answer.read, parameters: [] } } as unknown as Context;
      const reply = await runOperation(operations.get(answer.read)!, read, req, principal, {}, deps);
      return reply.status === 200 && !('file' in reply && reply.file) ? { status: answer.status, body: reply.body, headers: {} } : null;
    };
    send(res, await idempotently(deps.idempotency, { ...request, headers: req.headers, principal, clientAddress: req.ip ?? null }, handle, deps.logger, replay));
  });
  return router;
}

/** Text bodies of the requests being answered (their contract takes a text media type, and one was sent). */
const textBodies = new WeakMap<Request, string>();

/** The media types other than JSON an operation's contract takes as its body (text/csv). */
function textTypesOf(operation: Operation): string[] {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  return Object.keys(content).filter((type) => type.startsWith('text/'));
}

/** The reads that answer with each state a change may answer with (by the answer's schema). */
const STATE_READS: Record<string, string> = {
  '#/components/schemas/ExternalAgreementResponse': 'getAgreement',
  '#/components/schemas/SignatureExecutionResponse': 'getSignatureExecution',
};

/** The success status of an operation whose success answer is a record's state, and the read that answers it; else null. */
function stateAnswerOf(operation: { responses?: Record<string, unknown> }): { status: number; read: string } | null {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = (response as { content?: Record<string, { schema?: { $ref?: string } }> }).content?.['application/json']?.schema;
    const read = schema?.$ref ? STATE_READS[schema.$ref] : undefined;
    return read ? { status: Number(status), read } : null;
  }
  return null;
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Who may call an operation, read from its `security` in the contract (the one declaration). */
type RouteAccess = 'public' | 'authenticated' | 'bearer_only';

function accessOf(operation: { security?: unknown }): RouteAccess {
  const schemes = ((operation.security ?? []) as Record<string, unknown>[]).flatMap((requirement) => Object.keys(requirement));
  if (schemes.length === 0) return 'public';
  return schemes.includes('apiKeyAuth') ? 'authenticated' : 'bearer_only';
}

/** The caller's principal (null on public routes, which ignore credentials) once the route's guard passed, or the refusal. */
async function admit(operation: { security?: unknown }, runs: RestOperation | undefined, req: Request, deps: RestFacadeDeps): Promise<{ principal: Principal | null } | RestError> {
  const principal = await authenticate(accessOf(operation), req, deps);
  if (principal instanceof DomainError) return restErrorFromFailure(failureFromDomain(principal), 'body');
  try {
    runs?.guard?.({ headers: req.headers, query: req.query }, deps.services);
  } catch (error) {
    if (error instanceof DomainError) return restErrorFromFailure(failureFromDomain(error), 'body');
    throw error;
  }
  return { principal };
}

/** The caller's principal (null on public routes, which ignore credentials), or the domain error that refuses it. */
async function authenticate(access: RouteAccess, req: Request, deps: RestFacadeDeps): Promise<Principal | null | DomainError> {
  if (access === 'public') return null;
  let principal: Principal | null;
  try {
    principal = await deps.authenticate(readCredentials(req.headers));
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  if (!principal) return new DomainError('unauthenticated', 'Authentication required');
  if (access === 'bearer_only' && principal.kind !== 'session') {
    return new DomainError('bearer_required', 'This operation needs a bearer token; API keys are not accepted');
  }
  return principal;
}

async function runOperation(
  { runs: operation, status }: { runs: RestOperation; status: number },
  c: Context,
  req: Request,
  principal: Principal | null,
  input: Record<string, unknown>,
  deps: RestFacadeDeps,
): Promise<RestReply | RestError> {
  const location = operation.issueLocation ?? 'body';
  try {
    const context: GraphContext = { principal, via: 'rest_api', requestId: typeof req.id === 'string' ? req.id : randomUUID(), clientAddress: req.ip ?? null };
    const params = (c.request.params ?? {}) as Record<string, string>;
    const text = textBodies.get(req);
    return await operation.run({ params, query: coerceQuery(c), input: text === undefined ? input : {}, headers: req.headers, body: text === undefined ? c.request.requestBody : undefined, text }, deps.executor.bind(context), { status, services: deps.services });
  } catch (error) {
    const failure = operationFailure(error);
    if (failure) return restErrorFromFailure(failure, location);
    deps.logger.error({ err: error, operationId: c.operation.operationId }, 'REST operation failed');
    return restError('internal_error', 'Internal server error');
  }
}

function toValidationItems(errors: ErrorObject[]): ValidationErrorItem[] {
  return errors.map((error) => {
    const path = error.instancePath.split('/').filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const [root, ...rest] = path;
    const location = root === 'requestBody' ? 'body' : root === undefined ? 'body' : String(root);
    const missing = error.keyword === 'required' ? [(error.params as { missingProperty: string }).missingProperty] : [];
    // openapi-backend names the body `requestBody`; the contract calls it the body.
    if (root === undefined && missing[0] === 'requestBody') return { loc: ['body'], msg: 'A JSON body is required', type: 'missing' };
    const extra = error.keyword === 'additionalProperties' ? [(error.params as { additionalProperty: string }).additionalProperty] : [];
    return {
      loc: [location, ...rest, ...missing, ...extra],
      msg: error.keyword === 'additionalProperties' ? 'Unknown property' : (error.message ?? 'Invalid value'),
      type: error.keyword,
    };
  });
}

/** Query values arrive as strings; the contract's parameter types (already validated) say what they are. */
function coerceQuery(c: Context): Record<string, unknown> {
  const query: Record<string, unknown> = { ...(c.request.query as Record<string, unknown>) };
  const parameters = (c.operation.parameters ?? []) as { in?: string; name?: string; schema?: { type?: string } }[];
  for (const parameter of parameters) {
    const value = parameter.in === 'query' && parameter.name ? query[parameter.name] : undefined;
    if (typeof value !== 'string' || !parameter.name) continue;
    if (parameter.schema?.type === 'integer' || parameter.schema?.type === 'number') query[parameter.name] = Number(value);
    else if (parameter.schema?.type === 'boolean') query[parameter.name] = value === 'true';
  }
  return query;
}

/** A JSON reply as the bytes `send` would write (kept answers are sent without serializing again). */
function asSentBytes(reply: RestReply | RestError): RestReply {
  if ('file' in reply && reply.file) return reply;
  if (reply.body === undefined || reply.status !== 200) return reply;
  return { status: reply.status, headers: { ...reply.headers, 'content-type': 'application/json; charset=utf-8' }, file: Buffer.from(JSON.stringify(reply.body)) };
}

function send(res: Response, reply: RestReply | RestError): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if ('stream' in reply && reply.stream) {
    // Headers are gone once the first bytes are: a failure half-way can only cut the response short.
    res.status(reply.status);
    reply.stream(res).catch((error: unknown) => {
      res.locals.streamFailure = error;
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  } else if ('file' in reply && reply.file) res.status(reply.status).end(reply.file);
  else if (reply.body === undefined) res.status(reply.status).end();
  else res.status(reply.status).json(reply.body);
}
