/** Where the authorization server's endpoints are mounted, and where the consent page lives. */
export const OAUTH_MOUNT = '/oauth';
export const CONSENT_PATH = `${OAUTH_MOUNT}/consent`;

export const OAUTH_ROUTES = {
  authorization: '/authorize',
  token: '/token',
  registration: '/register',
  revocation: '/revoke',
  jwks: '/jwks',
} as const;
