import { BlockList, isIP } from 'node:net';
import { checkAddress, hostnameOf, systemResolver, type ResolvedAddress, type Resolver } from '../shared/outbound-http.js';
import { DomainError } from '../shared/errors.js';

/** Longest endpoint URL accepted. */
export const WEBHOOK_URL_MAX = 2048;

/**
 * Where webhooks may go. Anything public over https; over http only outside production; a
 * non-public address (loopback, private, link-local...) only when the operator allowed its host
 * name or a network containing it (`WEBHOOK_ALLOWED_HOSTS`: how an internal service is reached).
 */
export class WebhookTargets {
  private readonly hosts = new Set<string>();
  private readonly networks = new BlockList();

  constructor(
    private readonly deps: {
      allowedHosts: readonly string[];
      production: boolean;
      /** DNS resolution; injectable so that tests never query real DNS. */
      resolver?: Resolver;
    },
  ) {
    for (const entry of deps.allowedHosts) {
      const [network, prefix] = entry.split('/');
      const family = isIP(network ?? '');
      if (family && prefix !== undefined) this.networks.addSubnet(network!, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
      else if (family) this.networks.addAddress(network!, family === 4 ? 'ipv4' : 'ipv6');
      else this.hosts.add(entry.toLowerCase());
    }
  }

  /** Parses and checks an endpoint URL as given (shape only; `resolve` checks where it leads). */
  parse(raw: string): URL {
    const invalid = (message: string, code = 'invalid_url') => DomainError.invalid(['url'], message, code);
    if (raw.length > WEBHOOK_URL_MAX) throw invalid(`At most ${WEBHOOK_URL_MAX} characters`, 'too_long');
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid('Must be an absolute http or https URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`Must use https (got ${url.protocol.replace(/:$/, '')})`);
    if (url.username || url.password) throw invalid('URLs with credentials are not accepted; the signature authenticates deliveries');
    if (url.hash) throw invalid('A fragment is never sent; leave it out');
    if (url.protocol === 'http:' && this.deps.production && !this.allows(hostnameOf(url))) throw invalid('Must use https (plain http only for hosts in WEBHOOK_ALLOWED_HOSTS)');
    return url;
  }

  /** An entry of WEBHOOK_ALLOWED_HOSTS names the host: as a name, or (an address) as an address or network that holds it. */
  private allows(host: string): boolean {
    if (this.hosts.has(host)) return true;
    const family = isIP(host);
    return family !== 0 && this.networks.check(host, family === 6 ? 'ipv6' : 'ipv4');
  }

  /**
   * The address to connect to: every address the host resolves to must be public, unless the host
   * or that address is allowed. The connection goes to the checked address (no second resolution a
   * DNS rebind could change).
   */
  async resolve(url: URL, signal?: AbortSignal): Promise<ResolvedAddress> {
    const hostname = hostnameOf(url);
    const allows = (a: ResolvedAddress) => this.hosts.has(hostname) || this.networks.check(a.address, a.family === 6 ? 'ipv6' : 'ipv4');
    const checked = await checkAddress(url, { resolve: this.deps.resolver ?? systemResolver, allows, deadline: signal });
    if ('address' in checked) return checked.address;
    if (checked.refused === 'unresolvable') throw DomainError.invalid(['url'], "The URL's host could not be resolved", 'unresolvable_host');
    throw DomainError.invalid(
      ['url'],
      `The URL's host resolves to a non-public address (${checked.kind}); an operator can allow it with WEBHOOK_ALLOWED_HOSTS`,
      'private_address',
    );
  }
}
