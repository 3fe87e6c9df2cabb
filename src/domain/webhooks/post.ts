import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { ResolvedAddress } from '../ceremonies/methods/safe-fetch.js';

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
export function postOnce(url: URL, pinned: ResolvedAddress, headers: Record<string, string>, body: string, timeouts: PostTimeouts): Promise<PostOutcome> {
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const bytes = Buffer.from(body, 'utf8');
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      resolve(outcome);
    };
    const total = setTimeout(() => {
      request.destroy();
      settle({ status: null, error: `no answer within ${timeouts.totalMs / 1000} s` });
    }, timeouts.totalMs);
    const request = (secure ? https : http).request(
      {
        // Connecting to the checked IP literal pins the connection: Node does no lookup for an IP.
        host: pinned.address,
        family: pinned.family,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        servername: isIP(hostname) ? undefined : hostname,
        headers: { ...headers, host: url.host, 'content-type': 'application/json', 'content-length': String(bytes.length), 'user-agent': 'record-signing-webhooks/1' },
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_READ_MAX) {
            response.destroy();
            settle({ status });
          }
        });
        response.on('end', () => settle({ status }));
        response.on('error', () => settle({ status }));
      },
    );
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connect = setTimeout(() => {
        request.destroy();
        settle({ status: null, error: `could not connect within ${timeouts.connectMs / 1000} s` });
      }, timeouts.connectMs);
      socket.once('connect', () => clearTimeout(connect));
      socket.once('close', () => clearTimeout(connect));
    });
    request.on('error', (error: NodeJS.ErrnoException) => settle({ status: null, error: describe(error) }));
    request.end(bytes);
  });
}

const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** A network error in words that name no address, URL or secret. */
function describe(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  return NETWORK_ERRORS[code] ?? (code.startsWith('ERR_TLS') || code.includes('CERT') ? 'TLS failed' : 'connection failed');
}
