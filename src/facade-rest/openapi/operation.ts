/**
 * Builds OpenAPI operation objects from a compact route description: security from the access
 * level, error responses from the statuses that apply (400/422 derived from the inputs), and the
 * required API-key scope, taken from the domain's declaration (domain/identity/operation-access.ts)
 * of the operation the route runs, both in the description and as `x-required-scopes`.
 */
import { accessOf, scopeOf, type DomainOperation } from '../../domain/identity/operation-access.js';
import { IDEMPOTENCY_KEY_LENGTH } from '../../domain/idempotency/idempotency-store.js';
import { CACHE_CONTROL } from '../../domain/shared/cache-policy.js';
import { jsonBody, jsonContent, ref, type JsonObject, type Schema } from './helpers.js';
import { IMAGE_REPRESENTATIONS, SIGNATURE_METHOD_TYPES, type ApiKeyScope } from './vocabulary.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** public: no credentials; protected: bearer token or API key; bearer: bearer token only. */
type Access = 'public' | 'protected' | 'bearer';

/**
 * What the router answers before any operation runs, whatever the operation (router.ts, in its order):
 * 413 for an announced or read body over the limit and 415 for a body that is not JSON (on any method:
 * a body sent is read), 400 for a malformed percent-escape or body, 422 for a parameter, query
 * parameter or body the contract refuses (an unknown query parameter too). Every operation declares them.
 */
const ROUTER_STATUSES = [400, 413, 415, 422] as const;

/** Error statuses an operation declares on its own (ROUTER_STATUSES, and 409 for a mutation's Idempotency-Key, are added). */
export type ErrorStatus = 401 | 403 | 404 | 409 | 422 | 429 | 503;

export type Success = { status: number; description: string; content?: JsonObject; headers?: JsonObject };

export type RouteSpec = {
  id: string;
  summary: string;
  tags: string[];
  description?: string;
  params?: JsonObject[];
  body?: JsonObject;
  ok: Success;
  /** Answers that are neither the success nor an error (a readiness probe's 503 body). */
  other?: Success[];
  errors: ErrorStatus[];
  /** The quota per client network address this route counts (ClientLimits): answered in RateLimit header fields. */
  clientQuota?: string;
};

/** Where the REST routes live; the meta routes are at the root. */
export const API = '/api/v1';

// Error statuses by kind of operation.
export const PROTECTED_READ: ErrorStatus[] = [401, 403, 404, 429];
export const PROTECTED_ACTION: ErrorStatus[] = [401, 403, 404, 409, 429];
export const PROTECTED_CREATE: ErrorStatus[] = [401, 403, 429];
export const PUBLIC: ErrorStatus[] = [429];

// --- parameters -------------------------------------------------------------------------------

function pathParam(name: string, schema: Schema, description: string): JsonObject {
  return { name, in: 'path', required: true, description, schema };
}

export const agrId = (): JsonObject =>
  pathParam('agr_id', { type: 'string', minLength: 1 }, 'Record identifier (UUID) or AGR reference.');
export const idOrRef = (): JsonObject =>
  pathParam('id_or_ref', { type: 'string', minLength: 1 }, 'Notarization record identifier (UUID) or AGR reference.');
export const agrReference = (): JsonObject =>
  pathParam('agr_reference', { type: 'string', minLength: 1 }, 'Public AGR reference of the record.');
export const partyId = (): JsonObject =>
  pathParam('party_id', { type: 'string', format: 'uuid' }, 'Participant identifier.');
export const counterId = (): JsonObject =>
  pathParam('counter_id', { type: 'string', format: 'uuid' }, 'Counter-proposal identifier.');
export const keyId = (): JsonObject => pathParam('key_id', { type: 'string', format: 'uuid' }, 'API key identifier.');
export const connectorId = (): JsonObject => pathParam('connector_id', { type: 'string', format: 'uuid' }, 'Connector identifier.');
export const methodType = (): JsonObject =>
  pathParam('method_type', { type: 'string', enum: [...SIGNATURE_METHOD_TYPES] }, 'Signature method.');
export const ticketToken = (): JsonObject =>
  pathParam('token', { type: 'string', minLength: 20, maxLength: 128 }, 'Opaque single-use ticket token.');

export function queryParam(name: string, schema: Schema, description: string): JsonObject {
  return { name, in: 'query', required: false, description, schema };
}

export const imageRepresentation = (): JsonObject =>
  queryParam(
    'image_representation',
    { type: 'string', enum: [...IMAGE_REPRESENTATIONS], default: 'metadata' },
    'Identicon representation. Use `compatibility_data_uri` only when an older client needs an inline SVG data URI ' +
      '(`svg_data_uri`).',
  );

export function headerParam(name: string, schema: Schema, description: string): JsonObject {
  return { name, in: 'header', required: false, description, schema };
}

/** Accepted by every mutating route (IETF httpapi Idempotency-Key): a retry replays the first answer. */
const idempotencyKey = (): JsonObject =>
  headerParam(
    'Idempotency-Key',
    { type: 'string', minLength: IDEMPOTENCY_KEY_LENGTH.min, maxLength: IDEMPOTENCY_KEY_LENGTH.max, pattern: '^[\\x21-\\x7e]+$' },
    'Makes a retry safe: a random value (a UUID, for instance), unique per request, optionally quoted as a ' +
      'Structured Field string. A retry with the same key and the same request (method, path, query, body, caller) ' +
      'gets the stored status, headers and body again, with `Idempotent-Replayed: true`; the same key with a ' +
      'different request answers 422 (`idempotency_key_reused`); a retry while the first request still runs answers ' +
      '409 `idempotency_key_in_use` with `Retry-After`. Answers of 429 and 5xx are not kept, so their retry runs ' +
      'again. Keys are kept for 24 hours per caller (identity, API key, or anonymous client address).',
  );

const REPLAYED = {
  'Idempotent-Replayed': {
    description: 'Present (`true`) when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', const: 'true' },
  },
};

/** RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) of a route limited per client address. */
function quotaHeaders(policy: string): JsonObject {
  return {
    'RateLimit-Policy': {
      description: `The client's quota on this route, per network address: \`q\` requests per \`w\` seconds (a sliding window), under the policy name \`${policy}\`.`,
      schema: { type: 'string', maxLength: 80, pattern: '^"[a-z_]+";q=[0-9]+;w=[0-9]+$', example: `"${policy}";q=60;w=3600` },
    },
    RateLimit: {
      description:
        'What this request left of that quota: `r` more requests now, and the whole quota again in `t` seconds (once ' +
        'the requests counted now are a whole window old). On a 429, `r` is 0 and `Retry-After` says when the next request passes.',
      schema: { type: 'string', maxLength: 80, pattern: '^"[a-z_]+";r=[0-9]+;t=[0-9]+$', example: `"${policy}";r=59;t=4210` },
    },
  };
}

/** A required JSON body of a named schema. */
export const body = (schemaName: string): JsonObject => jsonBody(ref(schemaName), true);

// --- responses --------------------------------------------------------------------------------

export const json = (schemaName: string, status: number, description: string): Success => ({
  status,
  description,
  content: jsonContent(ref(schemaName)),
});

export const binary = (mediaType: string, description: string, headers?: JsonObject): Success => ({
  status: 200,
  description,
  // The bytes as they are (OpenAPI 3.1: a media type's contentMediaType, no string schema).
  content: { [mediaType]: { schema: { contentMediaType: mediaType } } },
  ...(headers ? { headers } : {}),
});

/** The headers of what a single-use link answers (`link` names it): never cached, never sent as a referrer. */
export const singleUseHeaders = (link: string): JsonObject => ({
  'Cache-Control': { description: 'Never cached.', schema: { type: 'string', const: CACHE_CONTROL.secret } },
  'Referrer-Policy': { description: `${link} is never sent as a referrer.`, schema: { type: 'string', const: 'no-referrer' } },
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request: unparsable JSON, or a malformed percent-escape in the URL (`error_code` `malformed_request`).',
  413: 'The request body is larger than this route accepts (`error_code` `payload_too_large`).',
  401: 'Missing or invalid authentication.',
  403: 'Role or scope failure.',
  404: 'Record or artifact not found.',
  409: 'Lifecycle conflict or stale state; `error_code` names the conflict (`stale_version`, `invalid_transition`, `idempotency_key_in_use`, ...).',
  415: 'The request body is not `application/json`.',
  422: 'Validation error.',
  429: 'Rate limited (OTP, provider, invitation or route limit).',
  500:
    'Unexpected failure: `error_code` `internal_error`; the detail says nothing of the cause (the log has it, under the ' +
    "answer's `X-Request-Id`). A change either committed whole or not at all: re-read the state, or retry with the same `Idempotency-Key`.",
  503:
    'A service this answer depends on (the database, or the chain) cannot be reached now, or the request missed its deadline; ' +
    "`error_code` `unavailable`, retry after `Retry-After` seconds (a write retried with the same `Idempotency-Key` answers its result if it committed).",
};

function errorResponses(statuses: readonly number[]): JsonObject {
  const responses: JsonObject = {};
  for (const status of [...new Set(statuses)].sort((a, b) => a - b)) {
    const description = ERROR_DESCRIPTIONS[status] ?? 'Error.';
    const schema = ref(status === 422 ? 'HTTPValidationError' : 'ErrorResponse');
    const response: JsonObject = { description, content: jsonContent(schema) };
    if (status === 429 || status === 503) {
      response.headers = {
        'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
      };
    }
    responses[String(status)] = response;
  }
  return responses;
}

// --- operations -------------------------------------------------------------------------------

function security(access: Access): JsonObject[] {
  if (access === 'public') return [];
  if (access === 'bearer') return [{ bearerAuth: [] }];
  return [{ bearerAuth: [] }, { apiKeyAuth: [] }];
}

function accessNote(access: Access, scope: ApiKeyScope | undefined): string {
  if (access === 'public') return 'No credentials required.';
  if (access === 'bearer') return 'Bearer token only: API keys are not accepted.';
  return scope === undefined
    ? 'Bearer token or API key.'
    : `Bearer token or API key with the \`${scope}\` scope.`;
}

/**
 * A route's credentials, from the declaration of the domain operation it runs (operation-access.ts):
 * public, a session's only, or a session or an API key with the operation's scope. The meta routes
 * (health, readiness, MCP diagnostics) run none and are public.
 */
function declaredAccess(runs: DomainOperation | null): Access {
  const access = runs ? accessOf(runs) : 'public';
  return access === 'public' ? 'public' : access === 'session' ? 'bearer' : 'protected';
}

/** The OpenAPI operation of a route that runs the domain operation `runs` (null: a meta route). */
export function operation(spec: RouteSpec, method: HttpMethod, runs: DomainOperation | null): JsonObject {
  const access = declaredAccess(runs);
  const mutating = method !== 'get';
  const scope = (runs && scopeOf(runs)) ?? undefined;
  if (access === 'protected' && scope === undefined) {
    throw new Error(`OpenAPI: protected operation ${spec.id} runs no domain operation with a declared scope`);
  }
  const params = [...(spec.params ?? []), ...(mutating ? [idempotencyKey()] : [])];
  const statuses: number[] = [...spec.errors, ...ROUTER_STATUSES, ...(mutating ? [409] : [])];

  const success: JsonObject = { description: spec.ok.description };
  if (spec.ok.content !== undefined) success.content = spec.ok.content;
  if (spec.ok.headers !== undefined || mutating) success.headers = { ...spec.ok.headers, ...(mutating ? REPLAYED : {}) };

  const op: JsonObject = {
    operationId: spec.id,
    summary: spec.summary,
    description: [spec.description, accessNote(access, scope)].filter(Boolean).join('\n\n'),
    tags: [...spec.tags],
    security: security(access),
  };
  if (access === 'protected' && scope !== undefined) op['x-required-scopes'] = [scope];
  if (params.length > 0) op.parameters = params;
  if (spec.body !== undefined) op.requestBody = spec.body;
  const other = Object.fromEntries(
    (spec.other ?? []).map(({ status, description, content }) => [String(status), { description, ...(content ? { content } : {}) }]),
  );
  // Any operation can meet an unexpected failure, or a database that does not answer; those answers have the error shape too.
  const errors = errorResponses([...statuses, 500, 503]);
  if (spec.clientQuota !== undefined) {
    const quota = quotaHeaders(spec.clientQuota);
    success.headers = { ...(success.headers as JsonObject | undefined), ...quota };
    const refusal = errors['429'] as JsonObject | undefined;
    if (refusal) refusal.headers = { ...(refusal.headers as JsonObject | undefined), ...quota };
  }
  op.responses = { [String(spec.ok.status)]: success, ...errors, ...other };
  return op;
}
