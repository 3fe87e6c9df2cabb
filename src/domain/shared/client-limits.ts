import type { MikroORM } from '@mikro-orm/postgresql';
import type { RateLimiter, RateLimitRule } from './rate-limiter.js';
import { reportQuota } from './quotas.js';

/** The routes anyone can call without credentials. */
export type AnonymousRoute = 'request_otp' | 'verify_otp' | 'public_verify' | 'oauth_register';

export type ClientLimitSettings = { codeCallsPerHour: number; verificationsPerMinute: number; registrationsPerHour?: number };

/**
 * Limits per client network address on the anonymous routes, on top of the limits per email
 * address: one client cannot have codes mailed to any number of addresses, guess codes across
 * many events, or flood public verification. The answer never depends on whether an address is known.
 * Each count is reported (`reportQuota`) to the request being served: its answer, a refusal
 * included, carries the client's quota in RateLimit header fields. Only these quotas are: a limit
 * per email address would tell anyone how an address is being used.
 */
export class ClientLimits {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      rateLimiter: RateLimiter;
      settings: ClientLimitSettings;
    },
  ) {}

  /** Counts one call of `route` from `client`; no address (an in-process caller) is not limited here. */
  async admit(client: string | null | undefined, route: AnonymousRoute): Promise<void> {
    if (!client) return;
    const rule: RateLimitRule =
      route === 'public_verify'
        ? { limit: this.deps.settings.verificationsPerMinute, windowSeconds: 60, name: 'client_public_verify' }
        : route === 'oauth_register'
          ? { limit: this.deps.settings.registrationsPerHour ?? 20, windowSeconds: 3600, name: 'client_oauth_register' }
          : { limit: this.deps.settings.codeCallsPerHour, windowSeconds: 3600, name: `client_${route}` };
    await this.deps.rateLimiter.hit(this.deps.orm.em.fork(), `client:${route}:${client}`, rule, 'requests from this network address', (quota) =>
      reportQuota({ policy: route, ...quota }),
    );
  }
}
