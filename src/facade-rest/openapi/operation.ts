/**
 * Builds OpenAPI operation objects from a compact route description: security from the access
 * level, error responses from the statuses that apply (400/422 derived from the inputs), and the
 * required API-key scope both in the description and as `x-required-scopes`.
 */
import { jsonContent, ref, type JsonObject, type Schema } from './helpers.js';
import { IMAGE_REPRESENTATIONS, SIGNATURE_METHOD_TYPES, type ApiKeyScope } from './vocabulary.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** public: no credentials; protected: bearer token or API key; bearer: bearer token only. */
export type Access = 'public' | 'protected' | 'bearer';

/** Error statuses an operation declares on its own; 400 and 422 are added from its inputs. */
export type ErrorStatus = 401 | 403 | 404 | 409 | 422 | 429;

export type Success = { status: number; description: string; content?: JsonObject; headers?: JsonObject };

export type RouteSpec = {
  id: string;
  summary: string;
  tags: string[];
  description?: string;
  access?: Access;
  scope?: ApiKeyScope;
  params?: JsonObject[];
  body?: JsonObject;
  ok: Success;
  errors: ErrorStatus[];
};

export type Route = { method: HttpMethod; path: string; spec: RouteSpec };

export const route = (method: HttpMethod, path: string, spec: RouteSpec): Route => ({ method, path, spec });

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

/** A path parameter is checked when its schema says more than "a string". */
function isValidatedParam(param: JsonObject): boolean {
  if (param.in !== 'path') return true;
  const schema = param.schema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return false;
  return Object.keys(schema).some((key) => key !== 'type' && key !== 'minLength');
}

// --- responses --------------------------------------------------------------------------------

export const json = (schemaName: string, status: number, description: string): Success => ({
  status,
  description,
  content: jsonContent(ref(schemaName)),
});

export const binary = (mediaType: string, description: string, headers?: JsonObject): Success => ({
  status: 200,
  description,
  content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
  ...(headers ? { headers } : {}),
});

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (e.g. unparsable JSON).',
  401: 'Missing or invalid authentication.',
  403: 'Role or scope failure.',
  404: 'Record or artifact not found.',
  409: 'Lifecycle conflict or stale state; `error_code` names the conflict (`stale_version`, `invalid_transition`, ...).',
  422: 'Validation error.',
  429: 'Rate limited (OTP, provider, invitation or route limit).',
};

export function errorResponses(statuses: readonly number[]): JsonObject {
  const responses: JsonObject = {};
  for (const status of [...new Set(statuses)].sort((a, b) => a - b)) {
    const description = ERROR_DESCRIPTIONS[status] ?? 'Error.';
    const schema = ref(status === 422 ? 'HTTPValidationError' : 'ErrorResponse');
    const response: JsonObject = { description, content: jsonContent(schema) };
    if (status === 429) {
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

export function operation(spec: RouteSpec): JsonObject {
  const access = spec.access ?? 'protected';
  if (access === 'protected' && spec.scope === undefined) {
    throw new Error(`OpenAPI: protected operation ${spec.id} names no scope`);
  }
  const params = spec.params ?? [];
  const statuses: number[] = [...spec.errors];
  if (spec.body !== undefined) statuses.push(400, 422);
  if (params.some(isValidatedParam)) statuses.push(422);

  const success: JsonObject = { description: spec.ok.description };
  if (spec.ok.content !== undefined) success.content = spec.ok.content;
  if (spec.ok.headers !== undefined) success.headers = spec.ok.headers;

  const op: JsonObject = {
    operationId: spec.id,
    summary: spec.summary,
    description: [spec.description, accessNote(access, spec.scope)].filter(Boolean).join('\n\n'),
    tags: [...spec.tags],
    security: security(access),
  };
  if (access === 'protected' && spec.scope !== undefined) op['x-required-scopes'] = [spec.scope];
  if (params.length > 0) op.parameters = params;
  if (spec.body !== undefined) op.requestBody = spec.body;
  op.responses = { [String(spec.ok.status)]: success, ...errorResponses(statuses) };
  return op;
}
