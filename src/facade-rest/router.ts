import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { OpenAPIBackend, type Context } from 'openapi-backend';
import addFormats from 'ajv-formats';
import type { ErrorObject } from 'ajv';
import type { Logger } from 'pino';
import { DomainError } from '../domain/shared/errors.js';
import type { Principal } from '../domain/identity/principal.js';
import type { GraphContext } from '../graph/context.js';
import { GraphOperationError, type GraphExecutor } from '../graph/executor.js';
import { camelKeys } from './case.js';
import { restError, restErrorFromGraph, validationError, type RestError, type ValidationErrorItem } from './errors.js';
import { buildOpenApiDocument, type JsonObject } from './openapi/index.js';
import type { Graph, RestOperation, RestReply } from './operation.js';
import { restOperations } from './operations.js';
import { pruneToSchema } from './prune.js';

export type RestFacadeDeps = {
  executor: GraphExecutor;
  authenticate: (credentials: { bearer?: string; apiKey?: string }) => Promise<Principal | null>;
  meta: Record<string, RestOperation>;
  logger: Logger;
};

/**
 * `/api/v1` (and the meta routes) served from the OpenAPI document through openapi-backend:
 * routing and contract validation there, then one GraphQL operation in-process per route.
 */
export async function createRestFacade(deps: RestFacadeDeps): Promise<express.Router> {
  const document = buildOpenApiDocument();
  const schemas = document.components.schemas;
  const operations: Record<string, RestOperation> = { ...restOperations, ...deps.meta };
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
  // Credentials are checked by the domain (so GraphQL and REST agree); the contract only documents them.
  api.registerSecurityHandler('bearerAuth', () => true);
  api.registerSecurityHandler('apiKeyAuth', () => true);
  api.register({
    notFound: () => restError('not_found', 'No such route'),
    methodNotAllowed: () => restError('method_not_allowed', 'Method not allowed on this route'),
    notImplemented: (c: Context) => restError('not_implemented', `${c.operation.operationId} is not available yet`),
  });
  for (const [operationId, operation] of Object.entries(operations)) {
    api.register(operationId, async (c: Context, req: Request) => {
      let principal: Principal | null = null;
      if (operation.access === 'authenticated') {
        try {
          principal = await deps.authenticate(readCredentials(req));
        } catch (error) {
          if (error instanceof DomainError) return restError(error.code, error.message);
          throw error;
        }
        if (!principal) return restError('unauthenticated', 'Authentication required');
      }
      const validation = api.validateRequest(c.request, operationId);
      if (!validation.valid) return validationError(toValidationItems(validation.errors ?? []));
      const requestBody = (c.operation.requestBody as { content?: Record<string, { schema?: JsonObject }> } | undefined)?.content?.[
        'application/json'
      ]?.schema;
      const body = pruneToSchema(c.request.requestBody ?? {}, requestBody, schemas);
      return runOperation(operation, c, req, principal, camelKeys<Record<string, unknown>>(body ?? {}), deps);
    });
  }
  await api.init();

  const router = express.Router();
  router.get('/api/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.use(express.json({ limit: '256kb' }));
  router.use(async (req: Request, res: Response) => {
    const reply = (await api.handleRequest(
      {
        method: req.method,
        path: req.path,
        query: req.query as Record<string, string>,
        headers: req.headers as Record<string, string>,
        body: req.body as unknown,
      },
      req,
    )) as RestReply | RestError;
    send(res, reply);
  });
  return router;
}

async function runOperation(
  operation: RestOperation,
  c: Context,
  req: Request,
  principal: Principal | null,
  input: Record<string, unknown>,
  deps: RestFacadeDeps,
): Promise<RestReply | RestError> {
  const location = operation.issueLocation ?? 'body';
  try {
    const context: GraphContext = { principal, via: 'rest_api', requestId: typeof req.id === 'string' ? req.id : randomUUID() };
    const graph: Graph = (document, variables) => deps.executor.execute(document, variables, context);
    const params = (c.request.params ?? {}) as Record<string, string>;
    return await operation.run({ params, query: coerceQuery(c), input, headers: req.headers, body: c.request.requestBody }, graph);
  } catch (error) {
    if (error instanceof GraphOperationError && error.errors[0]) return restErrorFromGraph(error.errors[0], location);
    if (error instanceof DomainError) return restError(error.code, error.message, error.details);
    deps.logger.error({ err: error, operationId: c.operation.operationId }, 'REST operation failed');
    return restError('internal_error', 'Internal server error');
  }
}

/** Bearer first; an Authorization header that is not a bearer token is a failed authentication, not anonymity. */
export function readCredentials(req: { headers: Record<string, string | string[] | undefined> }): { bearer?: string; apiKey?: string } {
  const authorization = req.headers.authorization;
  const apiKey = req.headers['x-api-key'];
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return { bearer: match?.[1] ?? '' };
  }
  if (typeof apiKey === 'string') return { apiKey };
  return {};
}

function toValidationItems(errors: ErrorObject[]): ValidationErrorItem[] {
  return errors.map((error) => {
    const path = error.instancePath.split('/').filter(Boolean).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const [root, ...rest] = path;
    const location = root === 'requestBody' ? 'body' : root === undefined ? 'body' : String(root);
    const missing = error.keyword === 'required' ? [(error.params as { missingProperty: string }).missingProperty] : [];
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

function send(res: Response, reply: RestReply | RestError): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (reply.body === undefined) res.status(reply.status).end();
  else res.status(reply.status).json(reply.body);
}
