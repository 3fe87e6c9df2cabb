import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

/**
 * The one way the service reaches another server (proof posts, webhooks, OAuth client metadata
 * documents), so that no caller can be turned against the service's own network (SSRF): the host is
 * resolved first, every answer is checked, and only then is a connection opened, to the address that
 * was checked (no second resolution a DNS rebind could change). A refused address is never connected
 * to: neither a socket nor a TLS hello tells the caller whether something listens there.
 */

export type AddressKind = 'public' | 'loopback' | 'private' | 'link_local' | 'unique_local' | 'multicast' | 'unspecified' | 'reserved' | 'invalid';

type Range = [kind: Exclude<AddressKind, 'public' | 'invalid'>, network: string, prefix: number, family: 'ipv4' | 'ipv6'];

// Order matters: the first matching kind wins (`::` and `::1` lie inside the reserved `::/96`).
const RANGES: Range[] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // carrier-grade NAT: internal to some provider
  ['private', 'fec0::', 10, 'ipv6'], // deprecated site-local
  ['private', '64:ff9b:1::', 48, 'ipv6'], // local-use NAT64
  ['link_local', '169.254.0.0', 16, 'ipv4'], // includes cloud metadata endpoints
  ['link_local', 'fe80::', 10, 'ipv6'],
  ['unique_local', 'fc00::', 7, 'ipv6'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'], // includes the broadcast address
  ['reserved', '::', 96, 'ipv6'], // IPv4-compatible (deprecated)
  ['reserved', '64:ff9b::', 96, 'ipv6'], // NAT64 could translate to any IPv4 address, private ones too
  ['reserved', '100::', 64, 'ipv6'],
  ['reserved', '2001::', 23, 'ipv6'], // protocol assignments (Teredo embeds arbitrary IPv4)
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['reserved', '2002::', 16, 'ipv6'], // 6to4 embeds arbitrary IPv4
];

const LISTS = RANGES.map(([kind, network, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { kind, list };
});

/**
 * What kind of address this is. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) are classified by
 * their IPv4 part: BlockList applies IPv4 rules to them.
 */
export function classifyAddress(address: string): AddressKind {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // URL brackets, IPv6 zone id
  const version = isIP(bare);
  if (version === 0) return 'invalid';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(({ list }) => list.check(bare, family))?.kind ?? 'public';
}

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system's resolver, every answer in the order given (each is checked). */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's host name without IPv6 brackets, lowercase. */
export function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The address to connect to, or why there is none. */
export type AddressCheck = { address: ResolvedAddress } | { refused: 'unresolvable' } | { refused: 'non_public'; kind: AddressKind };

/**
 * Resolves the URL's host (an IP literal is its own answer) and checks every answer: public, or one
 * the caller allows (its operator's hosts and networks). A mixed answer is refused as a whole: it is
 * how a rebinding attack slips a private address in. Nothing is connected to here.
 */
export async function checkAddress(
  url: URL,
  options: { resolve?: Resolver; allows?: (address: ResolvedAddress) => boolean; deadline?: AbortSignal },
): Promise<AddressCheck> {
  const hostname = hostnameOf(url);
  const literal = isIP(hostname);
  const addresses = literal
    ? [{ address: hostname, family: literal }]
    : await raceDeadline((options.resolve ?? systemResolver)(hostname), options.deadline).catch(() => []);
  if (addresses.length === 0) return { refused: 'unresolvable' };
  const refused = addresses.find((a) => classifyAddress(a.address) !== 'public' && !options.allows?.(a));
  return refused ? { refused: 'non_public', kind: classifyAddress(refused.address) } : { address: addresses[0]! };
}

export type Exchange = {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: Buffer;
  /** Ends the whole exchange, connection included. */
  deadline: AbortSignal;
  /** The connection must open within this many milliseconds (else only the deadline bounds it). */
  connectMs?: number;
  /** Response bytes read at most, declared or streamed. */
  maxBytes: number;
  /** Certificates to trust instead of the system's (PEM). */
  ca?: string;
};

export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** Why an exchange has no whole answer; `status` when the answer had begun. */
export class ExchangeError extends Error {
  constructor(
    readonly reason: 'timeout' | 'connect_timeout' | 'too_large' | 'network',
    readonly status: number | null,
    /** The system's error code of a network failure (ECONNREFUSED, ERR_TLS_..., ...). */
    readonly code?: string,
  ) {
    super(`${reason}${code ? ` (${code})` : ''}`);
    this.name = 'ExchangeError';
  }
}

/**
 * One request to an address `checkAddress` let through: no redirect is followed (the caller decides
 * whether a hop is allowed, and checks it again), the Host header and the TLS server name are the
 * URL's, so the certificate is still verified against the real host name.
 */
export function exchange(url: URL, pinned: ResolvedAddress, request: Exchange): Promise<Answer> {
  const secure = url.protocol === 'https:';
  const hostname = hostnameOf(url);
  return new Promise<Answer>((resolve, reject) => {
    let status: number | null = null;
    const fail = (reason: ExchangeError['reason'], code?: string) => {
      outgoing.destroy();
      reject(new ExchangeError(request.deadline.aborted ? 'timeout' : reason, status, code));
    };
    const outgoing = (secure ? https : http).request(
      {
        // Connecting to the checked IP literal pins the connection: Node does no lookup for an IP.
        host: pinned.address,
        family: pinned.family,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: request.method,
        servername: isIP(hostname) ? undefined : hostname,
        headers: { ...request.headers, host: url.host, ...(request.body ? { 'content-length': String(request.body.length) } : {}) },
        ...(request.ca ? { ca: request.ca } : {}),
        agent: false,
        signal: request.deadline,
      },
      (response) => {
        status = response.statusCode ?? 0;
        if (Number(response.headers['content-length'] ?? 0) > request.maxBytes) return fail('too_large');
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxBytes) fail('too_large');
          else chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: status!, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', (error: NodeJS.ErrnoException) => fail('network', error.code));
      },
    );
    if (request.connectMs !== undefined) {
      const connectMs = request.connectMs;
      outgoing.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connect = setTimeout(() => fail('connect_timeout'), connectMs);
        socket.once('connect', () => clearTimeout(connect));
        socket.once('close', () => clearTimeout(connect));
      });
    }
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail('network', error.code));
    outgoing.end(request.body);
  });
}

/** The work, or a rejection when the deadline passes first (none: the work alone). */
async function raceDeadline<T>(work: Promise<T>, deadline: AbortSignal | undefined): Promise<T> {
  if (!deadline) return work;
  if (deadline.aborted) throw new Error('deadline passed');
  return Promise.race([
    work,
    new Promise<never>((_resolve, reject) => deadline.addEventListener('abort', () => reject(new Error('deadline passed')), { once: true })),
  ]);
}
