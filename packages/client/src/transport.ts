/**
 * The fetch the typed client sends through: credentials, an `Idempotency-Key` on every write, and
 * waits on `429` as long as the answer's `Retry-After` says. One place, so that a retried write
 * carries the key of its first attempt (the service then runs it at most once).
 */

export type Fetch = (request: Request) => Promise<Response>;

export type RateLimitOptions = {
  /** How many times one call is sent again after a `429` (0: never). Default 3. */
  retries?: number;
  /** The longest `Retry-After` the client waits for; a longer one is answered to the caller at once. Default 60. */
  maxWaitSeconds?: number;
};

export type Credentials = { token?: string; apiKey?: string };

const WRITES = new Set(['POST', 'PATCH', 'DELETE']);

/** Milliseconds a `Retry-After` value asks for (delay-seconds or an HTTP date), or null when it says nothing usable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** `credentials` is read on each call: a sign-in changes it for the calls after. */
export function createTransport(fetch: Fetch, credentials: Credentials, options: RateLimitOptions = {}): Fetch {
  const retries = options.retries ?? 3;
  const maxWaitMs = (options.maxWaitSeconds ?? 60) * 1000;
  return async (request) => {
    // What a call sets itself (credentials, a key) wins over the client's.
    const { token, apiKey } = credentials;
    if (!request.headers.has('authorization') && !request.headers.has('x-api-key')) {
      // The service reads a bearer token before an API key; sending one of them keeps that unambiguous.
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      else if (apiKey) request.headers.set('x-api-key', apiKey);
    }
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', crypto.randomUUID());
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(request.clone());
      if (response.status !== 429 || attempt >= retries) return response;
      const waitMs = retryAfterMs(response.headers.get('retry-after'));
      if (waitMs === null || waitMs > maxWaitMs) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };
}
