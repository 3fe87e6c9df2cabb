/**
 * The served OpenAPI 3.1 document (`/api/openapi.json`), authoritative for field-level shapes of the
 * REST API. Built as plain JSON; each call returns a fresh object.
 */
import type { JsonObject, JsonValue } from './helpers.js';
import { operation } from './operation.js';
import { buildSchemas } from './schemas.js';
import { webhookEvents } from './webhook-deliveries.js';
import { boundDocument } from './bounds.js';
import type { RestRoute } from '../operation.js';
import { restRoutes } from '../routes/index.js';
import { WEBHOOKS_TAG } from '../routes/webhooks.js';
import { TEAMS_TAG } from '../routes/teams.js';
import { TEMPLATES_TAG } from '../routes/templates.js';
import { BULK_SENDS_TAG } from '../routes/bulk-sends.js';
import { EXPORTS_TAG } from '../routes/exports.js';

export type { JsonObject } from './helpers.js';

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: JsonObject;
  servers: JsonObject[];
  tags: JsonObject[];
  paths: Record<string, JsonObject>;
  /** What the service sends to webhook endpoints (OpenAPI 3.1), by event type. */
  webhooks: JsonObject;
  components: {
    schemas: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
  [extension: `x-${string}`]: JsonValue;
};

const DESCRIPTION = `Create, sign, seal and verify records: agreements, declarations, witnessed agreements and
notarizations of content hashes. The service is not a legal service; a human stays responsible for exact text,
secret inputs, signatures and consequential confirmations.

## Authentication
- **Bearer token** (\`Authorization: Bearer <token>\`): short-lived. Obtain it with
  \`POST /api/v1/verification/request-otp\` (purpose \`authenticate\`), then
  \`POST /api/v1/verification/verify-otp\` with the returned \`verification_event_id\` and the six-digit code
  sent by email.
- **API key** (\`X-API-Key: <key>\`): long-lived and scoped. Created with a bearer-authenticated
  \`POST /api/v1/api-keys\`; the full key is returned once. Revocation takes effect immediately.
- Bearer-only routes: \`/api/v1/identity/contact-points\`, \`/api/v1/identity/link\`,
  \`/api/v1/identity/connectors\` and every \`/api/v1/api-keys\` route. Public routes (health, public verification, share-card redemption, OTP request and verification, the
  inbound messenger webhook) need no credentials.
- Authentication proves access only: an authentication code can never satisfy a signature method, create
  signature evidence, enable finalization or finalize. Signing happens through a signature execution.
- **Hosted assistant connectors** use OAuth 2.1 at \`/mcp/oauth\` (metadata:
  \`/.well-known/oauth-protected-resource/mcp/oauth\` and \`/.well-known/oauth-authorization-server\`). Their
  access tokens are bound to \`/mcp/oauth\` and refused by this API; a signed-in person lists and disconnects
  them under \`/api/v1/identity/connectors\`.

## Scopes
API-key scopes are exact, not hierarchical. Each protected operation names its scope in its description and in
\`x-required-scopes\`.

| Scope | Operations |
|---|---|
| create | create agreements, declarations, notarizations; update and submit drafts |
| retrieve | retrieve and list records, download PDFs and cards, card tickets, read counter-proposals |
| verify | signature executions and their methods, finalization |
| amend | amendments, invitation resends, witness replacement, counter-proposals |
| cancel | declines, removals, rescission, witness and co-notarizer waivers, cancellation records |

## Errors
- \`422\`: \`HTTPValidationError\`, \`{"detail": [{"loc": ["body", "field"], "msg": "...", "type": "..."}]}\`.
- Every other error: \`ErrorResponse\`, \`{"detail": "<message>", "error_code": "<code>"}\`.
  \`400\` malformed request, \`401\` missing or invalid authentication, \`403\` role or scope failure, \`404\` missing
  record or artifact, \`409\` lifecycle conflict or stale state (\`error_code\` names it), \`429\` rate limited
  (with a \`Retry-After\` header and \`retry_after_seconds\`). The routes anyone may call (codes, public
  verification) answer the caller's quota per network address in \`RateLimit\` and \`RateLimit-Policy\` headers.
- A mutating request that times out must not be retried blindly: re-read the record and signature state and
  follow the returned state or next action, or retry it with the same \`Idempotency-Key\`.

## Retries (Idempotency-Key)
Every mutating route (and every GraphQL mutation at \`/graphql\`) accepts an \`Idempotency-Key\` header (IETF httpapi
Idempotency-Key draft): a random value of 16..255 visible ASCII characters, a UUID for instance. The first request
with a key runs and its answer is kept for 24 hours per caller; a retry with the same key and the same request
(method, path, query, body) gets that answer again, with \`Idempotent-Replayed: true\`. The same key with a different
request answers \`422\` (\`loc\` \`["header", "Idempotency-Key"]\`, type \`idempotency_key_reused\`); a retry while the first
request is still running answers \`409\` \`idempotency_key_in_use\` with \`Retry-After\` (1 s while it runs; when its
process died, the wait until a retry may take its claim over, at most 10 s). \`429\` and \`5xx\` answers are not
kept: their retry runs again.`;

const TAGS: [string, string][] = [
  ['Meta', 'Health and MCP diagnostics (root paths, no credentials).'],
  ['Agreements', 'Create, read, update and submit agreements and declarations.'],
  ['Signature ceremony', 'Signature executions: start methods, submit evidence, finalize.'],
  ['Lifecycle', 'Participant actions, rescission, amendment and mutual cancellation.'],
  ['Counter-proposals', 'Propose, resolve and withdraw counter-proposals on pending records.'],
  ['Notarizations', 'Notarizations of content hashes.'],
  ['Authentication', 'One-time codes and bearer tokens.'],
  ['Identity', 'Contact points and records of the caller\'s identity graph.'],
  ['API keys', 'Long-lived scoped credentials (bearer only).'],
  WEBHOOKS_TAG,
  TEAMS_TAG,
  TEMPLATES_TAG,
  BULK_SENDS_TAG,
  EXPORTS_TAG,
  ['Artifacts', 'Sealed PDFs, private cards and single-use card tickets.'],
  ['Public verification', 'Public certificate lookups and artifact verification.'],
  ['Inbound', 'Webhooks from messaging platforms.'],
];

/** The `paths` object: path -> method -> operation. A method on a path, or an operationId, declared twice stops the build. */
function buildPaths(routes: readonly RestRoute[]): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  const operationIds = new Set<string>();
  for (const { method, path, spec, runs } of routes) {
    const item = (paths[path] ??= {});
    if (item[method] !== undefined) throw new Error(`OpenAPI: duplicate route ${method.toUpperCase()} ${path}`);
    if (operationIds.has(spec.id)) throw new Error(`OpenAPI: duplicate operationId ${spec.id}`);
    operationIds.add(spec.id);
    item[method] = operation(spec, method, runs.operation?.name ?? null);
  }
  return paths;
}

export function buildOpenApiDocument(routes: readonly RestRoute[] = restRoutes()): OpenApiDocument {
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Record Signing and Notarization Service API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // The deployment serving this document (production or a local instance); public, not an internal API.
    servers: [{ url: '/', description: 'This deployment (production or a local instance)', 'x-internal': false }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths: buildPaths(routes),
    // What the service sends to webhook endpoints, per event type.
    webhooks: webhookEvents(),
    components: {
      schemas: buildSchemas(),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Short-lived token from `POST /api/v1/verification/verify-otp` (purpose `authenticate`).',
        },
        apiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'Scoped API key from `POST /api/v1/api-keys`.',
        },
      },
    },
  };
  boundDocument(document);
  return document;
}
