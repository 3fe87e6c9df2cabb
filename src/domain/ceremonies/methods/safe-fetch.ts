import { DomainError } from '../../shared/errors.js';
import { checkAddress, classifyAddress, exchange, ExchangeError, type Answer, type ResolvedAddress, type Resolver } from '../../shared/outbound-http.js';

/**
 * The proof fetcher's GET, on the outbound-HTTP rules (resolve, check, connect to the checked
 * address): the scheme and host must be on the caller's allow-list, every address the host resolves
 * to must be public. Redirects are followed by hand so that each hop passes the same checks.
 */

/** Loopback is allowed only by the explicit test switch; no other non-public kind ever is. */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(address);
  return kind === 'public' || (allowLoopback && kind === 'loopback');
}

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

export type FetchedResponse = Answer & { url: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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
  const checked = await checkAddress(url, { resolve: policy.resolve, allows: (a) => isAllowedAddress(a.address, policy.allowLoopback), deadline });
  if ('address' in checked) return checked.address;
  if (checked.refused === 'unresolvable') throw upstream(policy.provider, `could not be resolved (${url.hostname})`);
  throw DomainError.invalid(['url'], `${url.host} resolves to a non-public address (${checked.kind}); only public addresses are fetched`, 'private_address');
}

async function getOnce(url: URL, pinned: ResolvedAddress, maxBytes: number, deadline: AbortSignal, provider: string, timeoutMs: number): Promise<FetchedResponse> {
  const headers = { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': 'record-signing-proof-check/1' };
  try {
    return { ...(await exchange(url, pinned, { method: 'GET', headers, deadline, maxBytes })), url: url.href };
  } catch (error) {
    if (!(error instanceof ExchangeError)) throw error;
    if (error.reason === 'timeout') throw upstream(provider, `did not answer within ${timeoutMs / 1000} s`);
    if (error.reason === 'too_large') throw upstream(provider, `answered with more than ${maxBytes} bytes`);
    throw upstream(provider, error.status === null ? 'could not be reached' : 'broke off its answer');
  }
}

/** Upstream trouble is a state of the outside world, not bad input: 409 so the signer retries later. */
function upstream(provider: string, what: string): DomainError {
  return new DomainError('conflict', `The ${provider} API ${what}; try again later`);
}
