import type { PresentedCredentials } from '../../domain/identity/credential-resolver.js';

export type { PresentedCredentials };

export type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Reads credentials from HTTP headers (or graphql-ws connection params, lower-cased the same way).
 * Bearer first; an Authorization header that is not a bearer token is a failed authentication, not
 * anonymity, so it becomes an empty bearer that no resolver accepts.
 */
export function readCredentials(headers: HeaderBag): PresentedCredentials {
  const authorization = headers.authorization;
  const apiKey = headers['x-api-key'];
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return { bearer: match?.[1] ?? '' };
  }
  if (typeof apiKey === 'string') return { apiKey };
  return {};
}

/** graphql-ws clients send credentials in connection params: `{ authorization: 'Bearer …' }` or `{ 'x-api-key': … }`. */
export function credentialsFromParams(params: Record<string, unknown>): PresentedCredentials {
  const headers: HeaderBag = {};
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') headers[key.toLowerCase()] = value;
  return readCredentials(headers);
}
