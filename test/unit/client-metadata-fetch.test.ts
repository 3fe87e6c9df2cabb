import fs from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Resolver } from '../../src/domain/shared/outbound-http.js';
import { clientMetadataFetch } from '../../src/facade-oauth/client-metadata-fetch.js';
import { startClientMetadataServer } from '../support/oauth.js';

// NETWORK RULE: only 127.0.0.1 is ever connected to. Host names go through an injected resolver
// (never real DNS), and every other address is refused before a socket is opened.

const dns: Record<string, string[]> = {
  'metadata.internal': ['127.0.0.1'],
  'mixed.example': ['93.184.215.14', '127.0.0.1'],
  'metadata.corp': ['127.0.0.1'],
};
const resolve: Resolver = async (hostname) => {
  const addresses = dns[hostname];
  if (!addresses) throw new Error('ENOTFOUND');
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('clientMetadataFetch', () => {
  let documents: Awaited<ReturnType<typeof startClientMetadataServer>>;
  // A listener that counts connections and never answers: none may reach it.
  let listener: Server;
  let port: number;
  const connections: Socket[] = [];

  beforeAll(async () => {
    documents = await startClientMetadataServer('https://assistant.example/oauth/callback');
    listener = createServer((socket) => void connections.push(socket));
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    await new Promise((done) => listener.close(done));
    await documents.stop();
  });

  const get = (url: string, allowedHosts: string[] = []) =>
    clientMetadataFetch({ allowedHosts, ca: fs.readFileSync(documents.cert, 'utf8') }, resolve)(url, { headers: { accept: 'application/json' } });

  it('fetches a document from a host the operator allowed, trusting the given CA', async () => {
    const clientId = documents.publish('/allowed/client.json');
    const response = await get(clientId, [new URL(documents.base).host]);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('max-age=60');
    expect(await response.json()).toMatchObject({ client_id: clientId });
  });

  it.each([
    ['a loopback address', () => `https://127.0.0.1:${port}/meta`, /non-public address \(loopback\)/],
    ['a name resolving to a loopback address', () => `https://metadata.internal:${port}/meta`, /non-public address \(loopback\)/],
    ['a name whose answers mix a public and a loopback address', () => `https://mixed.example:${port}/meta`, /non-public address \(loopback\)/],
    ['a private address', () => 'https://10.1.2.3/meta', /non-public address \(private\)/],
    ['a cloud metadata address in IPv6 form', () => 'https://[::ffff:169.254.169.254]/latest', /non-public address \(link_local\)/],
    ['a unique local IPv6 address', () => 'https://[fd00::1]/meta', /non-public address \(unique_local\)/],
    ['a name that does not resolve', () => 'https://nowhere.example/meta', /could not be resolved/],
  ])('refuses %s that is not allowed without connecting', async (_what, url, reason) => {
    await expect(get(url())).rejects.toThrow(reason);
    expect(connections).toHaveLength(0);
  });

  it('verifies the certificate against the URL host name, not the address connected to', async () => {
    // metadata.corp resolves to 127.0.0.1, whose certificate names 127.0.0.1 only.
    const url = `https://metadata.corp:${new URL(documents.base).port}/allowed/client.json`;
    await expect(get(url, [new URL(url).host])).rejects.toMatchObject({ reason: 'network', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('refuses a document larger than 64 KiB', async () => {
    const clientId = documents.publish('/large/client.json', { padding: 'a'.repeat(70 * 1024) });
    await expect(get(clientId, [new URL(documents.base).host])).rejects.toMatchObject({ reason: 'too_large' });
  });
});
