import { catalog } from '../../graph/catalog/index.js';
import type { CreateApiKeyInput, LinkContactPointInput, RequestOtpInput, VerifyOtpInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation } from '../operation.js';
import { param } from './params.js';

const { identity } = catalog;

/** Sign-in codes, sessions, contact points and API keys. */
export const identityRoutes: Record<string, RestOperation> = {
  requestOtp: bind(identity.requestOtp, { input: ({ input }) => ({ input: input as RequestOtpInput }) }),
  verifyOtp: bind(identity.verifyOtp, {
    secret: true,
    input: ({ input }) => ({ input: input as VerifyOtpInput }),
    // Token fields exist for an `authenticate` code only.
    body: (session) => (session.accessToken ? session : { verified: session.verified }),
  }),
  signOut: bind(identity.signOut, { input: (r) => ({ everywhere: (r.input as { everywhere?: unknown } | undefined)?.everywhere === true }) }),
  listContactPoints: bind(identity.listContactPoints, { input: () => ({}), body: (contactPoints) => ({ contactPoints }) }),
  linkContactPoint: bind(identity.linkContactPoint, {
    input: ({ input }) => ({ input: input as LinkContactPointInput }),
    body: (contactPoint) => ({ contactPoint }),
  }),
  listApiKeys: bind(identity.listApiKeys, { input: () => ({}), body: (apiKeys) => ({ apiKeys }) }),
  createApiKey: bind(identity.createApiKey, {
    status: 201,
    secret: true,
    input: ({ input }) => ({ input: input as CreateApiKeyInput }),
    body: ({ apiKey, key }) => ({ ...apiKey, key }),
  }),
  revokeApiKey: bind(identity.revokeApiKey, { status: 204, issueLocation: 'path', input: (r) => ({ id: param('key_id')(r) }) }),
  listConnectors: bind(identity.listConnectors, { input: () => ({}), body: (connectors) => ({ connectors }) }),
  disconnectConnector: bind(identity.disconnectConnector, { status: 204, issueLocation: 'path', input: (r) => ({ id: param('connector_id')(r) }) }),
};
