import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAllowedAddress, safeGet, type FetchPolicy } from '../../src/domain/ceremonies/methods/safe-fetch.js';
import { classifyAddress, type Resolver } from '../../src/domain/shared/outbound-http.js';
import { DomainError } from '../../src/domain/shared/errors.js';

// NETWORK RULE: only 127.0.0.1 is ever connected to. Hostnames go through an injected resolver
// (never real DNS), and every other address is refused before a socket is opened.

describe('classifyAddress', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
    ['2002:a00:1::1', 'reserved'],
    ['not-an-address', 'invalid'],
  ])('classifies %s as %s (refused)', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])(
    'accepts the public address %s',
    (address) => {
      expect(classifyAddress(address)).toBe('public');
      expect(isAllowedAddress(address, false)).toBe(true);
    },
  );

  it('lets the test switch open loopback and nothing else', () => {
    for (const loopback of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(isAllowedAddress(loopback, true)).toBe(true);
    for (const other of ['10.0.0.1', '172.16.0.1', '192.168.0.1', '169.254.169.254', 'fc00::1', 'fe80::1', '0.0.0.0', '::ffff:10.0.0.1']) {
      expect(isAllowedAddress(other, true)).toBe(false);
    }
  });
});

describe('safeGet', () => {
  let server: Server;
  let port: number;
  let handler: RequestListener;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
    handler = (_req, res) => res.end('{"ok":true}');
  });

  const local = () => `127.0.0.1:${port}`;
  const policy = (overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({
    provider: 'Codehost',
    allowedHosts: new Set([local(), `api.codehost.example:${port}`, 'api.codehost.example']),
    allowLoopback: true,
    ...overrides,
  });
  const resolver = (...addresses: string[]) => {
    const calls: string[] = [];
    const resolve: Resolver = async (hostname) => {
      calls.push(hostname);
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    return { resolve, calls };
  };
  async function refusal(work: Promise<unknown>): Promise<{ code: string; type?: string; message: string }> {
    const error = await work.then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    const domain = error as DomainError;
    return { code: domain.code, type: domain.details.issues?.[0]?.type, message: domain.message };
  }

  it('fetches from an allowed loopback host when the test switch is on', async () => {
    const response = await safeGet(`http://${local()}/gists/1`, policy());
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ ok: true });
  });

  it('connects to the checked address only: one resolution, pinned, Host header kept', async () => {
    const dns = resolver('127.0.0.1');
    const response = await safeGet(`http://api.codehost.example:${port}/gists/2`, policy({ resolve: dns.resolve }));
    expect(response.status).toBe(200);
    expect(dns.calls).toEqual(['api.codehost.example']);
    expect(seen).toEqual([expect.objectContaining({ url: '/gists/2', headers: expect.objectContaining({ host: `api.codehost.example:${port}` }) })]);
  });

  it('refuses a host outside the allow-list without resolving it', async () => {
    const dns = resolver('127.0.0.1');
    expect(await refusal(safeGet('https://evil.example/x', policy({ resolve: dns.resolve })))).toMatchObject({ code: 'validation_error', type: 'foreign_host' });
    expect(dns.calls).toEqual([]);
  });

  it('refuses plain http unless the test switch is on', async () => {
    expect(await refusal(safeGet(`http://${local()}/x`, policy({ allowLoopback: false })))).toMatchObject({ type: 'invalid_url' });
    expect(seen).toEqual([]);
  });

  it.each([['10.0.0.5'], ['169.254.169.254'], ['fd00::1'], ['::ffff:192.168.0.1'], ['0.0.0.0']])(
    'refuses a hostname resolving to %s, even with the test switch on',
    async (address) => {
      const dns = resolver(address);
      expect(await refusal(safeGet('https://api.codehost.example/x', policy({ resolve: dns.resolve })))).toMatchObject({ type: 'private_address' });
    },
  );

  it('refuses loopback without the test switch, and a mixed answer that hides a private address', async () => {
    const loop = resolver('127.0.0.1');
    expect(await refusal(safeGet('https://api.codehost.example/x', policy({ allowLoopback: false, resolve: loop.resolve })))).toMatchObject({
      type: 'private_address',
    });
    const mixed = resolver('93.184.216.34', '10.0.0.7');
    expect(await refusal(safeGet('https://api.codehost.example/x', policy({ resolve: mixed.resolve })))).toMatchObject({ type: 'private_address' });
    expect(seen).toEqual([]);
  });

  it('refuses private IP literals before connecting', async () => {
    const hosts = new Set(['10.0.0.1', '[fe80::1]', '[::ffff:a00:1]']);
    for (const url of ['http://10.0.0.1/x', 'http://[fe80::1]/x', 'http://[::ffff:10.0.0.1]/x']) {
      expect(await refusal(safeGet(url, policy({ allowedHosts: hosts })))).toMatchObject({ type: 'private_address' });
    }
  });

  it('follows up to three redirects on allowed hosts, re-checking each hop', async () => {
    handler = (req, res) => {
      const hop = Number(/\/hop\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      if (hop < 3) res.writeHead(302, { location: `/hop/${hop + 1}` }).end();
      else res.end('{"hop":3}');
    };
    const response = await safeGet(`http://${local()}/hop/0`, policy());
    expect(JSON.parse(response.body.toString())).toEqual({ hop: 3 });
    expect(response.url).toBe(`http://${local()}/hop/3`);

    handler = (req, res) => res.writeHead(302, { location: `${req.url ?? ''}x` }).end();
    expect(await refusal(safeGet(`http://${local()}/loop`, policy()))).toMatchObject({ code: 'conflict', message: expect.stringContaining('redirected') });
  });

  it('refuses a redirect to a foreign host or to a private address', async () => {
    handler = (_req, res) => res.writeHead(301, { location: 'https://evil.example/steal' }).end();
    expect(await refusal(safeGet(`http://${local()}/a`, policy()))).toMatchObject({ type: 'foreign_host' });
    handler = (_req, res) => res.writeHead(307, { location: 'http://10.0.0.1/internal' }).end();
    const hosts = new Set([local(), '10.0.0.1']);
    expect(await refusal(safeGet(`http://${local()}/b`, policy({ allowedHosts: hosts })))).toMatchObject({ type: 'private_address' });
  });

  it('caps the response size, declared or streamed', async () => {
    handler = (_req, res) => res.end(Buffer.alloc(300 * 1024, 'a'));
    expect(await refusal(safeGet(`http://${local()}/big`, policy()))).toMatchObject({ code: 'conflict', message: expect.stringContaining('bytes') });
    handler = (_req, res) => {
      res.writeHead(200, { 'transfer-encoding': 'chunked' });
      for (let i = 0; i < 40; i += 1) res.write(Buffer.alloc(8 * 1024, 'b'));
      res.end();
    };
    expect(await refusal(safeGet(`http://${local()}/stream`, policy()))).toMatchObject({ code: 'conflict' });
  });

  it('gives up after the time limit', async () => {
    handler = () => undefined; // never answers
    const started = Date.now();
    expect(await refusal(safeGet(`http://${local()}/slow`, policy({ timeoutMs: 300 })))).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('did not answer'),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
