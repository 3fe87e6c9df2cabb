/**
 * paths of the served OpenAPI document: full paths (REST routes under `/api/v1`, meta routes at the
 * root). Record routes live in paths-records.ts; this file holds the rest and assembles them.
 */
import { enumOf, freeObject, int, jsonBody, jsonContent, obj, bool, ref, type JsonObject } from './helpers.js';
import {
  agrReference,
  binary,
  headerParam,
  imageRepresentation,
  json,
  connectorId,
  keyId,
  operation,
  PUBLIC,
  queryParam,
  route,
  ticketToken,
  type Route,
} from './operation.js';
import { API, recordRoutes } from './paths-records.js';
import { webhookRoutes } from './paths-webhooks.js';
import { teamRoutes } from './paths-teams.js';
import { templateRoutes } from './paths-templates.js';
import { bulkSendRoutes } from './paths-bulk-sends.js';
import { exportRoutes } from './paths-exports.js';
import { RECORD_STATUSES, RECORD_TYPES } from './vocabulary.js';
import { LIMITS } from '../../domain/text-rules.js';
import { MAX_LIST_OFFSET } from '../../domain/records/record-service.js';
import { CACHE_CONTROL } from '../../domain/shared/cache-policy.js';

const body = (schema: string) => jsonBody(ref(schema), true);

function metaRoutes(): Route[] {
  const tags = ['Meta'];
  return [
    route('get', '/health', {
      id: 'getHealth',
      summary: 'Liveness',
      tags,
      ok: json('HealthResponse', 200, 'The service is up.'),
      errors: [],
    }),
    route('get', '/health/ready', {
      id: 'getHealthReady',
      summary: 'Readiness',
      tags,
      description:
        'Ready when the service\'s dependencies (database, mail, queue) answer. An instance that is stopping answers 503 at once with `checks.shutdown: stopping` while it still serves for its drain delay, so that a balancer takes it out of rotation.',
      ok: json('HealthReadyResponse', 200, 'The service is ready.'),
      other: [json('HealthReadyResponse', 503, 'Not ready: a dependency does not answer, or the instance is stopping; `checks` names which.')],
      errors: [],
    }),
    route('get', '/mcp/diagnostics', {
      id: 'getMcpDiagnostics',
      summary: 'MCP diagnostics',
      tags,
      description: 'Non-secret diagnostics of the MCP endpoints (`/mcp`, `/mcp/oauth`).',
      ok: json('McpDiagnosticsResponse', 200, 'MCP diagnostics.'),
      errors: [],
    }),
  ];
}

function authenticationRoutes(): Route[] {
  const tags = ['Authentication'];
  return [
    route('post', `${API}/verification/request-otp`, {
      id: 'requestOtp',
      summary: 'Request a one-time code',
      tags,
      description:
        'Sends a six-digit code to the email address for the given purpose (`authenticate` to obtain a bearer ' +
        'token). The code is never in a response. Codes of different purposes cannot replace each other.',
      body: body('OTPRequest'),
      ok: json('OTPRequestResponse', 200, 'The verification event to verify the code against.'),
      errors: PUBLIC,
      clientQuota: 'request_otp',
    }),
    route('post', `${API}/verification/verify-otp`, {
      id: 'verifyOtp',
      summary: 'Verify a one-time code',
      tags,
      description:
        'Verifies the code of a verification event; for the `authenticate` purpose it issues a short-lived bearer ' +
        'token. A code is single use. Credentials sent with it are not read: a code proves control of its address ' +
        'by itself. To add an address to a signed-in identity, verify a `contact_point_link` code with ' +
        '`POST /api/v1/identity/link` instead.',
      body: body('OTPVerifyRequest'),
      ok: json('OTPVerifyResponse', 200, 'The code was verified.'),
      errors: [401, 404, 409, 429],
      clientQuota: 'verify_otp',
    }),
    route('post', `${API}/identity/sign-out`, {
      id: 'signOut',
      summary: 'Sign out',
      tags,
      description:
        'Ends the caller\'s session at once, on every instance: its bearer token answers 401 from the next request on. ' +
        'With `everywhere`, every session of the identity ends (other browsers and devices); API keys and connected ' +
        'assistants stay (revoke them on their own). The body is optional.',
      body: jsonBody(ref('SignOutRequest'), false),
      ok: json('SignOutResponse', 200, 'The sessions ended.'),
      errors: [401, 403, 429],
    }),
  ];
}

function identityRoutes(): Route[] {
  const tags = ['Identity'];
  return [
    route('get', `${API}/identity/contact-points`, {
      id: 'listContactPoints',
      summary: 'List the identity\'s contact points',
      tags,
      ok: json('ContactPointListResponse', 200, 'Verified contact points of the caller\'s identity graph.'),
      errors: [401, 403, 429],
    }),
    route('post', `${API}/identity/link`, {
      id: 'linkContactPoint',
      summary: 'Link a contact point',
      tags,
      description: 'Links a contact point verified with a dedicated `contact_point_link` OTP to the caller\'s identity.',
      body: body('LinkContactPointRequest'),
      ok: json('ContactPointLinkResponse', 200, 'The linked contact point.'),
      errors: [401, 403, 404, 409, 429],
    }),
    route('get', `${API}/identity/agreements`, {
      id: 'listIdentityAgreements',
      summary: 'List the identity\'s records',
      tags,
      description: 'Records the caller\'s identity graph may retrieve, newest first.',
      params: [
        // Enumerated, so that a typed client refuses a misspelled status at compile time instead of listing nothing.
        queryParam('status', enumOf(RECORD_STATUSES), 'Only records with this status.'),
        queryParam('type', enumOf(RECORD_TYPES), 'Only records of this type.'),
        queryParam('limit', int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max, default: LIMITS.pageSize.default }), `Page size, ${LIMITS.pageSize.min} to ${LIMITS.pageSize.max}.`),
        queryParam('offset', int({ minimum: 0, maximum: MAX_LIST_OFFSET, default: 0 }), `Records to skip, 0 to ${MAX_LIST_OFFSET}.`),
      ],
      ok: json('IdentityAgreementsResponse', 200, 'A page of records.'),
      errors: [401, 403, 429],
    }),
  ];
}

function apiKeyRoutes(): Route[] {
  const tags = ['API keys'];
  return [
    route('get', `${API}/api-keys`, {
      id: 'listApiKeys',
      summary: 'List API keys',
      tags,
      description: 'Non-revoked keys of the caller\'s identity; never the full key.',
      ok: json('APIKeyListResponse', 200, 'The API keys.'),
      errors: [401, 403, 429],
    }),
    route('post', `${API}/api-keys`, {
      id: 'createApiKey',
      summary: 'Create an API key',
      tags,
      description: 'The full key is returned once, in this response only. Scopes are exact, not hierarchical.',
      body: body('CreateAPIKeyRequest'),
      ok: json('APIKeyCreatedSchema', 201, 'The new key, including the full key.'),
      errors: [401, 403, 429],
    }),
    route('delete', `${API}/api-keys/{key_id}`, {
      id: 'revokeApiKey',
      summary: 'Revoke an API key',
      tags,
      description: 'The key must belong to the caller\'s identity. Revocation takes effect immediately.',
      params: [keyId()],
      ok: { status: 204, description: 'Revoked.' },
      errors: [401, 403, 404, 429],
    }),
  ];
}

function connectorRoutes(): Route[] {
  const tags = ['Connectors'];
  return [
    route('get', `${API}/identity/connectors`, {
      id: 'listConnectors',
      summary: 'List connected assistants',
      tags,
      description:
        'Hosted assistants connected to the caller\'s identity through the OAuth connector flow (`/mcp/oauth`), live connections only, newest first.',
      ok: json('ConnectorListResponse', 200, 'The connected assistants.'),
      errors: [401, 403, 429],
    }),
    route('delete', `${API}/identity/connectors/{connector_id}`, {
      id: 'disconnectConnector',
      summary: 'Disconnect an assistant',
      tags,
      description: 'Ends the connection: its access and refresh tokens stop working at once. The connector must belong to the caller\'s identity.',
      params: [connectorId()],
      ok: { status: 204, description: 'Disconnected.' },
      errors: [401, 403, 404, 429],
    }),
  ];
}

function publicRoutes(): Route[] {
  const tags = ['Public verification'];
  const result = json('VerificationResultResponse', 200, 'The verification result.');
  return [
    route('get', `${API}/public/verify/{agr_reference}`, {
      id: 'getPublicVerification',
      summary: 'Look up a public certificate',
      tags,
      description:
        'Certificate and current-authority lookup by reference. Without an artifact this is not proof of a match ' +
        '(verdict `certificate`). An unknown reference answers verdict `not_found`.',
      params: [agrReference(), imageRepresentation()],
      ok: result,
      errors: PUBLIC,
      clientQuota: 'public_verify',
    }),
    route('post', `${API}/public/verify/{agr_reference}`, {
      id: 'verifyPublicRecord',
      summary: 'Verify an artifact against a record',
      tags,
      description: 'Verifies exactly one of: text, body, content hash, document hash or transaction hash.',
      params: [agrReference(), imageRepresentation()],
      body: body('VerifyBodyRequest'),
      ok: result,
      // 503: a transaction hash cannot be checked while the chain is unreachable (never answered as "no match").
      errors: [...PUBLIC, 503],
      clientQuota: 'public_verify',
    }),
    route('get', `${API}/public/agreements/{agr_reference}`, {
      id: 'getPublicAgreement',
      summary: 'Get the public view of a record',
      tags,
      description: 'Never exposes signature identicons, cards, bodies or private participant data.',
      params: [agrReference(), imageRepresentation()],
      ok: json('ExternalPublicAgreementResponse', 200, 'The public record.'),
      errors: [404, 429],
    }),
  ];
}

function shareCardAndInboundRoutes(): Route[] {
  const header = (description: string, value: string): JsonObject => ({
    description,
    schema: { type: 'string', const: value },
  });
  return [
    route('get', `${API}/artifacts/share-card/{token}`, {
      id: 'redeemShareCard',
      summary: 'Redeem a card ticket',
      tags: ['Artifacts'],
      description:
        'Returns the card image and redeems the single-use ticket atomically. Unknown, expired or redeemed tickets ' +
        'answer 404.',
      params: [ticketToken()],
      ok: binary('image/png', 'The card image.', {
        'Cache-Control': header('Never cached.', CACHE_CONTROL.secret),
        'Referrer-Policy': header('The ticket URL is never sent as a referrer.', 'no-referrer'),
      }),
      errors: [404, 429],
    }),
    route('get', `${API}/artifacts/document/{token}`, {
      id: 'redeemDocument',
      summary: 'Redeem a sealed-PDF ticket',
      tags: ['Artifacts'],
      description:
        'Returns the sealed, signed PDF and redeems the single-use ticket atomically (tickets are issued by the MCP tool ' +
        '`get_agreement_card` and the GraphQL mutation `createDocumentTicket`). Unknown, expired or redeemed tickets answer 404.',
      params: [ticketToken()],
      ok: binary('application/pdf', 'The sealed PDF.', {
        'Cache-Control': header('Never cached.', CACHE_CONTROL.secret),
        'Referrer-Policy': header('The ticket URL is never sent as a referrer.', 'no-referrer'),
      }),
      errors: [404, 429],
    }),
    route('post', `${API}/inbound/messenger`, {
      id: 'receiveMessengerUpdate',
      summary: 'Receive a messenger update',
      tags: ['Inbound'],
      description:
        'Webhook for messaging-platform updates that complete signing challenges. Authenticated by a shared ' +
        'secret, in the `secret` query parameter or the `X-Telegram-Bot-Api-Secret-Token` header; a missing or wrong ' +
        'secret (or none configured on the service) answers 403. Updates are deduplicated on `update_id`.',
      params: [
        queryParam('secret', { type: 'string' }, 'Shared webhook secret.'),
        headerParam('X-Telegram-Bot-Api-Secret-Token', { type: 'string' }, 'Shared webhook secret.'),
      ],
      body: jsonBody(freeObject({ description: 'The platform update, as sent by the platform.' }), true),
      ok: {
        status: 200,
        description: 'Update accepted (also when it completes nothing).',
        content: jsonContent(obj({ ok: bool() })),
      },
      errors: [403],
    }),
  ];
}

/** Every route of the REST API and the root meta routes. */
function allRoutes(): Route[] {
  return [
    ...metaRoutes(),
    ...recordRoutes(),
    ...authenticationRoutes(),
    ...identityRoutes(),
    ...apiKeyRoutes(),
    ...connectorRoutes(),
    ...webhookRoutes(),
    ...teamRoutes(),
    ...templateRoutes(),
    ...bulkSendRoutes(),
    ...exportRoutes(),
    ...publicRoutes(),
    ...shareCardAndInboundRoutes(),
  ];
}

/** The `paths` object: path -> method -> operation. */
export function buildPaths(): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {};
  for (const { method, path, spec } of allRoutes()) {
    const item = (paths[path] ??= {});
    if (item[method] !== undefined) throw new Error(`OpenAPI: duplicate route ${method.toUpperCase()} ${path}`);
    item[method] = operation(spec, method);
  }
  return paths;
}
