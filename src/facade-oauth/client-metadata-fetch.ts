import type { IncomingHttpHeaders } from 'node:http';
import type { Configuration } from 'oidc-provider';
import { checkAddress, exchange, systemResolver, type Resolver } from '../domain/shared/outbound-http.js';

type Fetch = NonNullable<Configuration['fetch']>;

/** Larger answers are cut off: oidc-provider's own body limit for documents is far below this. */
const MAX_BYTES = 64 * 1024;
/** oidc-provider gives every fetch its own 2.5 s signal; this is only the bound when it does not. */
const DEADLINE_MS = 2500;

/**
 * How the authorization server fetches Client ID Metadata Documents, on the outbound-HTTP rules: the
 * host is resolved and every address checked before any connection, which then goes to the checked
 * address. A non-public address (loopback, private, link-local, ...) is refused at once, unless the
 * operator allowed the host (a private network's clients, the tests'): its connection trusts `ca`
 * (PEM) when given, else the system's CAs. A refusal rejects, which oidc-provider answers with
 * invalid_client; no redirect is followed (oidc-provider asks for none and refuses any non-200).
 */
export function clientMetadataFetch(settings: { allowedHosts: readonly string[]; ca: string | null }, resolve: Resolver = systemResolver): Fetch {
  return async (input, options = {}) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.protocol !== 'https:') throw new Error('client metadata documents are fetched over https only');
    const allowed = settings.allowedHosts.includes(url.host.toLowerCase());
    const deadline = options.signal ?? AbortSignal.timeout(DEADLINE_MS);
    const checked = await checkAddress(url, { resolve, allows: () => allowed, deadline });
    if ('refused' in checked) throw new Error(checked.refused === 'unresolvable' ? 'client metadata host could not be resolved' : `client metadata host resolves to a non-public address (${checked.kind})`);
    const answer = await exchange(url, checked.address, {
      method: 'GET',
      headers: Object.fromEntries(new Headers(options.headers)),
      deadline,
      maxBytes: MAX_BYTES,
      ...(allowed && settings.ca ? { ca: settings.ca } : {}),
    });
    return new Response(answer.body, { status: answer.status, headers: headersOf(answer.headers) });
  };
}

function headersOf(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) result.append(name, item);
  }
  return result;
}
