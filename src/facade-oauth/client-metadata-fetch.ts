import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Configuration } from 'oidc-provider';

type Fetch = NonNullable<Configuration['fetch']>;

/** Larger answers are cut off: oidc-provider's own body limit for documents is far below this. */
const MAX_BYTES = 64 * 1024;

/**
 * How the authorization server fetches Client ID Metadata Documents. Any host: Node's fetch through
 * oidc-provider's own dispatcher, which refuses a connection to a special-use address (loopback,
 * private, link-local, ...) once the socket is connected (so no DNS answer can slip one in), with its
 * 2.5 s deadline and its body limit. The hosts the operator allows (a private network's clients, the
 * tests'): a GET without that address check, trusting `ca` (PEM) when given, else the system's CAs.
 */
export function clientMetadataFetch(settings: { allowedHosts: readonly string[]; ca: string | null }): Fetch {
  return (url, options) => {
    const target = new URL(url instanceof Request ? url.url : url.toString());
    if (target.protocol === 'https:' && settings.allowedHosts.includes(target.host.toLowerCase())) return allowedGet(target, options ?? {}, settings.ca);
    return fetch(url, options);
  };
}

function allowedGet(url: URL, init: RequestInit, ca: string | null): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: 'GET', headers: Object.fromEntries(new Headers(init.headers)), ...(ca ? { ca } : {}), agent: false, signal: init.signal ?? undefined },
      (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) answer.destroy(new Error('client metadata document too large'));
          else chunks.push(chunk);
        });
        answer.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 502, headers: headersOf(answer.headers) })));
        answer.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

function headersOf(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) result.append(name, item);
  }
  return result;
}
