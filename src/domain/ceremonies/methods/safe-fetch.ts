import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { DomainError } from '../../shared/errors.js';

/**
 * An HTTP GET that cannot be turned against the service's own network (SSRF): the scheme and host
 * must be on the caller's allow-list, every address the host resolves to must be public, and the
 * connection goes to the address that was checked (no second resolution a DNS rebind could change).
 * Redirects are followed by hand so that each hop passes the same checks.
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

/** Loopback is allowed only by the explicit test switch; no other non-public kind ever is. */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (allowLoopback && kind === 'loopback');
}

export type ResolvedAddress = { address: string; family: number };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type FetchPolicy = {
  /** Who the fetch is for, in error messages (e.g. "Codehost"). */
  provider: string;
  /** `URL.host` values (lowercase hostname, with the port when not the scheme's default). */
  allowedHosts: ReadonlySet<string>;
  /** Test setting: permits http and loopback addresses. */
  allowLoopback: boolean;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** DNS resolution; injectable so that tests never query real DNS. */
  resolve?: Resolver;
};

export type FetchedResponse = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; url: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The system's resolver, every answer in the order given (each is checked). */
export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export async function safeGet(target: string | URL, policy: FetchPolicy): Promise<FetchedResponse> {
  const maxBytes = policy.maxBytes ?? 256 * 1024;
  const timeoutMs = policy.timeoutMs ?? 5000;
  const maxRedirects = policy.maxRedirects ?? 3;
  // One deadline for the whole exchange, DNS and redirects included.
  const deadline = AbortSignal.timeout(timeoutMs);
  let url = new URL(target);
  for (let hop = 0; ; hop += 1) {
    const pinned = await checkTarget(url, policy, deadline);
    const response = await getOnce(url, pinned, maxBytes, deadline, policy.provider, timeoutMs);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || !location) return response;
    if (hop >= maxRedirects) throw upstream(policy.provider, `redirected more than ${maxRedirects} times`);
    url = new URL(location, url);
  }
}

/** Scheme, host and every resolved address; returns the address to connect to. */
async function checkTarget(url: URL, policy: FetchPolicy, deadline: AbortSignal): Promise<ResolvedAddress> {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowLoopback)) {
    throw DomainError.invalid(['url'], `${policy.provider} links must use https (got ${url.protocol.replace(/:$/, '')})`, 'invalid_url');
  }
  if (url.username || url.password) throw DomainError.invalid(['url'], 'Links with credentials are not accepted', 'invalid_url');
  if (!policy.allowedHosts.has(url.host.toLowerCase())) {
    throw DomainError.invalid(['url'], `${url.host} is not a ${policy.provider} host`, 'foreign_host');
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(hostname);
  const addresses = literal
    ? [{ address: hostname, family: literal }]
    : await raceDeadline((policy.resolve ?? systemResolver)(hostname), deadline).catch((error: unknown) => {
        if (error instanceof DomainError) throw error;
        throw upstream(policy.provider, `could not be resolved (${hostname})`);
      });
  // Every answer must pass: a mixed answer is how rebinding attacks slip a private address in.
  const refused = addresses.find((a) => !isAllowedAddress(a.address, policy.allowLoopback));
  if (refused || addresses.length === 0) {
    throw DomainError.invalid(
      ['url'],
      `${url.host} resolves to a non-public address (${refused ? classifyAddress(refused.address) : 'none'}); only public addresses are fetched`,
      'private_address',
    );
  }
  return addresses[0]!;
}

function getOnce(url: URL, pinned: ResolvedAddress, maxBytes: number, deadline: AbortSignal, provider: string, timeoutMs: number): Promise<FetchedResponse> {
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<FetchedResponse>((resolve, reject) => {
    const request = (secure ? https : http).request(
      {
        // Connecting to the checked IP literal pins the connection: Node does no lookup for an IP.
        host: pinned.address,
        family: pinned.family,
        port: url.port || (secure ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        // TLS still verifies the certificate against the real hostname.
        servername: isIP(hostname) ? undefined : hostname,
        headers: { host: url.host, accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'record-signing-proof-check/1' },
        agent: false,
        signal: deadline,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (REDIRECTS.has(status)) {
          response.resume();
          resolve({ status, headers: response.headers, body: Buffer.alloc(0), url: url.href });
          return;
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > maxBytes) {
          response.destroy();
          reject(upstream(provider, `answered with more than ${maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(upstream(provider, `answered with more than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks), url: url.href }));
        response.on('error', () => reject(deadline.aborted ? timedOut(provider, timeoutMs) : upstream(provider, 'broke off its answer')));
      },
    );
    request.on('error', () => reject(deadline.aborted ? timedOut(provider, timeoutMs) : upstream(provider, 'could not be reached')));
    request.end();
  });
}

/** The work, or a rejection when the deadline passes first (none: the work alone). */
export async function raceDeadline<T>(work: Promise<T>, deadline: AbortSignal | undefined): Promise<T> {
  if (!deadline) return work;
  if (deadline.aborted) throw new Error('deadline passed');
  return Promise.race([
    work,
    new Promise<never>((_resolve, reject) => deadline.addEventListener('abort', () => reject(new Error('deadline passed')), { once: true })),
  ]);
}

/** Upstream trouble is a state of the outside world, not bad input: 409 so the signer retries later. */
function upstream(provider: string, what: string): DomainError {
  return new DomainError('conflict', `The ${provider} API ${what}; try again later`);
}

function timedOut(provider: string, timeoutMs: number): DomainError {
  return upstream(provider, `did not answer within ${timeoutMs / 1000} s`);
}
