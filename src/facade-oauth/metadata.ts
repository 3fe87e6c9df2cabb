import { CONNECTOR_SCOPES } from '../domain/identity/connector-grants.js';
import { OAUTH_MOUNT, OAUTH_ROUTES } from './paths.js';

/** The protected resource's path; its metadata sits at the well-known path with this suffix (RFC 9728 section 3.1). */
export const CONNECTOR_RESOURCE_PATH = '/mcp/oauth';
export const PROTECTED_RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${CONNECTOR_RESOURCE_PATH}`;
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** RFC 8414 authorization server metadata: what oidc-provider is configured to do (provider.ts), nothing more. */
export function authorizationServerMetadata(issuer: string, clientMetadataDocuments: boolean): Record<string, unknown> {
  const endpoint = (route: string) => `${issuer}${OAUTH_MOUNT}${route}`;
  return {
    issuer,
    authorization_endpoint: endpoint(OAUTH_ROUTES.authorization),
    token_endpoint: endpoint(OAUTH_ROUTES.token),
    registration_endpoint: endpoint(OAUTH_ROUTES.registration),
    revocation_endpoint: endpoint(OAUTH_ROUTES.revocation),
    jwks_uri: endpoint(OAUTH_ROUTES.jwks),
    scopes_supported: [...CONNECTOR_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    authorization_response_iss_parameter_supported: true,
    resource_indicators_supported: true,
    // A client_id that is an https URL of the client's own metadata (features.clientIdMetadataDocument).
    ...(clientMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
    service_documentation: `${issuer}/api/openapi.json`,
  };
}

/** RFC 9728 protected resource metadata of `/mcp/oauth`. */
export function protectedResourceMetadata(issuer: string): Record<string, unknown> {
  return {
    resource: `${issuer}${CONNECTOR_RESOURCE_PATH}`,
    authorization_servers: [issuer],
    scopes_supported: [...CONNECTOR_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Record Signing (hosted assistant connector)',
  };
}
