/** Sign-in codes and sessions, the identity's contact points and records, its API keys and connected assistants. */
import { catalog } from '../../graph/catalog/index.js';
import type { CreateApiKeyInput, LinkContactPointInput, RequestOtpInput, VerifyOtpInput } from '../../graph/catalog/generated.js';
import { jsonBody, ref } from '../openapi/helpers.js';
import { API, body, connectorId, json, keyId, PUBLIC } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { param } from './params.js';
import { agreementsPage, listingParams, listingQuery } from './record-contract.js';

const { identity, records } = catalog;

function authenticationRoutes(): RestRoute[] {
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
      runs: bind(identity.requestOtp, { input: ({ input }) => ({ input: input as RequestOtpInput }) }),
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
      runs: bind(identity.verifyOtp, {
        secret: true,
        input: ({ input }) => ({ input: input as VerifyOtpInput }),
        // Token fields exist for an `authenticate` code only.
        body: (session) => (session.accessToken ? session : { verified: session.verified }),
      }),
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
      runs: bind(identity.signOut, { input: (r) => ({ everywhere: (r.input as { everywhere?: unknown } | undefined)?.everywhere === true }) }),
    }),
  ];
}

function contactPointAndRecordRoutes(): RestRoute[] {
  const tags = ['Identity'];
  return [
    route('get', `${API}/identity/contact-points`, {
      id: 'listContactPoints',
      summary: 'List the identity\'s contact points',
      tags,
      ok: json('ContactPointListResponse', 200, 'Verified contact points of the caller\'s identity graph.'),
      errors: [401, 403, 429],
      runs: bind(identity.listContactPoints, { input: () => ({}), body: (contactPoints) => ({ contactPoints }) }),
    }),
    route('post', `${API}/identity/link`, {
      id: 'linkContactPoint',
      summary: 'Link a contact point',
      tags,
      description: 'Links a contact point verified with a dedicated `contact_point_link` OTP to the caller\'s identity.',
      body: body('LinkContactPointRequest'),
      ok: json('ContactPointLinkResponse', 200, 'The linked contact point.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(identity.linkContactPoint, {
        input: ({ input }) => ({ input: input as LinkContactPointInput }),
        body: (contactPoint) => ({ contactPoint }),
      }),
    }),
    route('get', `${API}/identity/agreements`, {
      id: 'listIdentityAgreements',
      summary: 'List the identity\'s records',
      tags,
      description: 'Records the caller\'s identity graph may retrieve, newest first.',
      params: listingParams(),
      ok: json('IdentityAgreementsResponse', 200, 'A page of records.'),
      errors: [401, 403, 429],
      runs: bind(records.list, { issueLocation: 'query', input: listingQuery, body: agreementsPage }),
    }),
  ];
}

function apiKeyRoutes(): RestRoute[] {
  const tags = ['API keys'];
  return [
    route('get', `${API}/api-keys`, {
      id: 'listApiKeys',
      summary: 'List API keys',
      tags,
      description: 'Non-revoked keys of the caller\'s identity; never the full key.',
      ok: json('APIKeyListResponse', 200, 'The API keys.'),
      errors: [401, 403, 429],
      runs: bind(identity.listApiKeys, { input: () => ({}), body: (apiKeys) => ({ apiKeys }) }),
    }),
    route('post', `${API}/api-keys`, {
      id: 'createApiKey',
      summary: 'Create an API key',
      tags,
      description: 'The full key is returned once, in this response only. Scopes are exact, not hierarchical.',
      body: body('CreateAPIKeyRequest'),
      ok: json('APIKeyCreatedSchema', 201, 'The new key, including the full key.'),
      errors: [401, 403, 429],
      runs: bind(identity.createApiKey, {
        secret: true,
        input: ({ input }) => ({ input: input as CreateApiKeyInput }),
        body: ({ apiKey, key }) => ({ ...apiKey, key }),
      }),
    }),
    route('delete', `${API}/api-keys/{key_id}`, {
      id: 'revokeApiKey',
      summary: 'Revoke an API key',
      tags,
      description: 'The key must belong to the caller\'s identity. Revocation takes effect immediately.',
      params: [keyId()],
      ok: { status: 204, description: 'Revoked.' },
      errors: [401, 403, 404, 429],
      runs: bind(identity.revokeApiKey, { issueLocation: 'path', input: (r) => ({ id: param('key_id')(r) }) }),
    }),
  ];
}

function connectorRoutes(): RestRoute[] {
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
      runs: bind(identity.listConnectors, { input: () => ({}), body: (connectors) => ({ connectors }) }),
    }),
    route('delete', `${API}/identity/connectors/{connector_id}`, {
      id: 'disconnectConnector',
      summary: 'Disconnect an assistant',
      tags,
      description: 'Ends the connection: its access and refresh tokens stop working at once. The connector must belong to the caller\'s identity.',
      params: [connectorId()],
      ok: { status: 204, description: 'Disconnected.' },
      errors: [401, 403, 404, 429],
      runs: bind(identity.disconnectConnector, { issueLocation: 'path', input: (r) => ({ id: param('connector_id')(r) }) }),
    }),
  ];
}

export function identityRoutes(): RestRoute[] {
  return [...authenticationRoutes(), ...contactPointAndRecordRoutes(), ...apiKeyRoutes(), ...connectorRoutes()];
}
