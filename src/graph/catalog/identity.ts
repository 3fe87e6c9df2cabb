import { entry } from './entry.js';
import {
  AuthenticationStatusDocument,
  CreateApiKeyDocument,
  DisconnectConnectorDocument,
  ListConnectorsDocument,
  LinkContactPointDocument,
  ListApiKeysDocument,
  ListContactPointsDocument,
  RequestOtpDocument,
  RevokeApiKeyDocument,
  SignOutDocument,
  VerifyMcpAuthenticationDocument,
  OpenSignInSecretInputDocument,
  VerifyOtpDocument,
} from './generated.js';

/** Sign-in codes, sessions, contact points, API keys and connected assistants. */
export const identity = {
  requestOtp: entry('identity.requestOtp', RequestOtpDocument, (data) => data.requestOtp),
  verifyOtp: entry('identity.verifyOtp', VerifyOtpDocument, (data) => data.verifyOtp),
  openMcpGrant: entry('identity.openMcpGrant', VerifyMcpAuthenticationDocument, (data) => data.verifyMcpAuthentication),
  openSignInPage: entry('identity.openSignInPage', OpenSignInSecretInputDocument, (data) => data.openSignInSecretInput),
  signOut: entry('identity.signOut', SignOutDocument, (data) => data.signOut),
  authenticationStatus: entry('identity.authenticationStatus', AuthenticationStatusDocument, (data) => data.authenticationStatus),
  listContactPoints: entry('identity.listContactPoints', ListContactPointsDocument, (data) => data.contactPoints),
  linkContactPoint: entry('identity.linkContactPoint', LinkContactPointDocument, (data) => data.linkContactPoint),
  listApiKeys: entry('identity.listApiKeys', ListApiKeysDocument, (data) => data.apiKeys),
  createApiKey: entry('identity.createApiKey', CreateApiKeyDocument, (data) => data.createApiKey),
  revokeApiKey: entry('identity.revokeApiKey', RevokeApiKeyDocument, (data) => data.revokeApiKey),
  listConnectors: entry('identity.listConnectors', ListConnectorsDocument, (data) => data.connectors),
  disconnectConnector: entry('identity.disconnectConnector', DisconnectConnectorDocument, (data) => data.disconnectConnector),
};
