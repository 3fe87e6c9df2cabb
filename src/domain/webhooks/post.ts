import { exchange, ExchangeError, type ResolvedAddress } from '../shared/outbound-http.js';

export type PostTimeouts = { connectMs: number; totalMs: number };

/** What became of one attempt: the receiver's status, or why there is none (in words safe to store). */
export type PostOutcome = { status: number } | { status: null; error: string };

/** Response bytes read at most; the body is read only so that the connection ends cleanly, then ignored. */
export const RESPONSE_READ_MAX = 64 * 1024;

/**
 * One POST to an address already checked (`WebhookTargets.resolve`): no redirect is followed (a 3xx
 * is an answer like any other, and not 2xx), TLS is verified against the URL's host name, the
 * connection must open within `connectMs` and the exchange end within `totalMs`. Never throws.
 */
export async function postOnce(url: URL, pinned: ResolvedAddress, headers: Record<string, string>, body: string, timeouts: PostTimeouts): Promise<PostOutcome> {
  try {
    const answer = await exchange(url, pinned, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'record-signing-webhooks/1' },
      body: Buffer.from(body, 'utf8'),
      deadline: AbortSignal.timeout(timeouts.totalMs),
      connectMs: timeouts.connectMs,
      maxBytes: RESPONSE_READ_MAX,
    });
    return { status: answer.status };
  } catch (error) {
    if (!(error instanceof ExchangeError)) throw error;
    if (error.reason === 'timeout') return { status: null, error: `no answer within ${timeouts.totalMs / 1000} s` };
    if (error.reason === 'connect_timeout') return { status: null, error: `could not connect within ${timeouts.connectMs / 1000} s` };
    // The receiver answered: what came after its status (a body too long, a connection cut) does not matter.
    if (error.status !== null) return { status: error.status };
    return { status: null, error: describe(error.code ?? '') };
  }
}

const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** A network error in words that name no address, URL or secret. */
function describe(code: string): string {
  return NETWORK_ERRORS[code] ?? (code.startsWith('ERR_TLS') || code.includes('CERT') ? 'TLS failed' : 'connection failed');
}
