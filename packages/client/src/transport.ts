/**
 * The fetch the typed client sends through: credentials, an `Idempotency-Key` on every write, and
 * retries. One place, so that a retried write carries the key of its first attempt (the service then
 * runs it at most once, and answers a retry of one that committed with its stored answer).
 */
import { RecordSigningConnectionError } from './errors.js';

export type Fetch = (request: Request) => Promise<Response>;

export type RetryOptions = {
  /** How many times one call is sent again (0: never). Default 3. */
  retries?: number;
  /** The longest `Retry-After` the client waits for; an answer asking for longer is the call's answer at once. Default 60. */
  maxWaitSeconds?: number;
};

/** `tokenExpiresAt` (epoch ms), when known, tells an expired token from a refused one. */
export type Credentials = { token?: string; apiKey?: string; tokenExpiresAt?: number };

const WRITES = new Set(['POST', 'PATCH', 'DELETE']);
/**
 * Answers the service asks to be repeated after `Retry-After`: a rate limit, an unavailable dependency
 * or a missed deadline, and a 409 that says when to look again (an artifact still being made, or the
 * same Idempotency-Key's first request still running).
 */
const RETRY_AFTER_STATUSES = new Set([409, 429, 503]);
/** The first wait after a network failure or a 503 that names none; doubled each time. */
const BACKOFF_MS = 500;

/** Milliseconds a `Retry-After` value asks for (delay-seconds or an HTTP date), or null when it says nothing usable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** How long to wait before sending `response`'s request again, or null when it is the call's answer. */
function waitFor(response: Response, attempt: number, maxWaitMs: number): number | null {
  if (!RETRY_AFTER_STATUSES.has(response.status)) return null;
  const asked = retryAfterMs(response.headers.get('retry-after'));
  // A 503 from something in front of the service (a proxy, a load balancer) may name no wait.
  const wait = asked ?? (response.status === 503 ? BACKOFF_MS * 2 ** attempt : null);
  return wait === null || wait > maxWaitMs ? null : wait;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      // The reason abort() was given: an AbortError DOMException unless the caller chose another.
      reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/** `credentials` is read on each call: a sign-in changes it for the calls after. */
export function createTransport(fetch: Fetch, credentials: Credentials, options: RetryOptions = {}): Fetch {
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
    // A read is safe to send again, and so is a write with a key: its first run's answer is replayed.
    const repeatable = !WRITES.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = !repeatable || attempt >= retries;
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        if (last) throw new RecordSigningConnectionError(request, attempt + 1, error);
        await pause(BACKOFF_MS * 2 ** attempt, request.signal);
        continue;
      }
      const wait = last ? null : waitFor(response, attempt, maxWaitMs);
      if (wait === null) return response;
      await response.body?.cancel();
      await pause(wait, request.signal);
    }
  };
}
