import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A client's quota as one counted request left it: `limit` requests per `windowSeconds`, `remaining`
 * of them now, and all of them again in `resetSeconds` (the window slides: the requests counted now
 * stop weighing once they are a whole window old).
 */
export type Quota = { limit: number; windowSeconds: number; remaining: number; resetSeconds: number };

/** A quota under its policy's name (the limited route, e.g. `public_verify`). */
export type NamedQuota = Quota & { policy: string };

const observed = new AsyncLocalStorage<NamedQuota[]>();

/** Runs `work` collecting the quotas reported while it runs (and in everything it awaits) into `into`. */
export function observeQuotas<T>(into: NamedQuota[], work: () => T): T {
  return observed.run(into, work);
}

/** Reports a quota to the request that is being served, if any is observing (the last report of a policy wins). */
export function reportQuota(quota: NamedQuota): void {
  const quotas = observed.getStore();
  if (!quotas) return;
  const index = quotas.findIndex((known) => known.policy === quota.policy);
  if (index >= 0) quotas[index] = quota;
  else quotas.push(quota);
}

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` says
 * each quota (`q` requests per `w` seconds), `RateLimit` what is left of it (`r` requests, all back in
 * `t` seconds). Empty when nothing was counted.
 */
export function rateLimitHeaders(quotas: readonly NamedQuota[]): Record<string, string> {
  if (quotas.length === 0) return {};
  const name = (quota: NamedQuota) => `"${quota.policy.replace(/[^a-z0-9_]/gi, '')}"`;
  return {
    'RateLimit-Policy': quotas.map((quota) => `${name(quota)};q=${quota.limit};w=${quota.windowSeconds}`).join(', '),
    RateLimit: quotas.map((quota) => `${name(quota)};r=${quota.remaining};t=${quota.resetSeconds}`).join(', '),
  };
}
