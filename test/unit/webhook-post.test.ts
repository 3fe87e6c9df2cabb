import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { postOnce, RESPONSE_READ_MAX } from '../../src/domain/webhooks/post.js';

// NETWORK RULE: only 127.0.0.1 is ever connected to.

const pinned = { address: '127.0.0.1', family: 4 };
const timeouts = { connectMs: 500, totalMs: 400 };

describe('postOnce', () => {
  let server: Server;
  let port: number;
  let handler: RequestListener;
  const seen: { headers: IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        handler(req, res);
      });
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
    handler = (_req, res) => res.writeHead(204).end();
  });

  // The URL names a host that resolves nowhere: the connection goes to the pinned address only.
  const url = () => new URL(`http://hooks.example:${port}/in?x=1`);

  it('posts the body to the pinned address with the URL host and its headers, and answers the status', async () => {
    expect(await postOnce(url(), pinned, { 'webhook-id': 'evt_1' }, '{"a":1}', timeouts)).toEqual({ status: 204 });
    expect(seen).toEqual([
      {
        headers: expect.objectContaining({ host: `hooks.example:${port}`, 'webhook-id': 'evt_1', 'content-type': 'application/json', 'content-length': '7' }),
        body: '{"a":1}',
      },
    ]);
  });

  it('keeps the status of an answer whose body is longer than it reads', async () => {
    handler = (_req, res) => res.writeHead(200).end(Buffer.alloc(RESPONSE_READ_MAX * 2, 'a'));
    expect(await postOnce(url(), pinned, {}, '{}', timeouts)).toEqual({ status: 200 });
  });

  it('says when no answer came in time, and when the connection was refused, naming no address', async () => {
    handler = () => undefined;
    expect(await postOnce(url(), pinned, {}, '{}', timeouts)).toEqual({ status: null, error: 'no answer within 0.4 s' });

    // A port nothing listens on: bound, then closed again.
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const free = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await postOnce(new URL(`http://hooks.example:${free}/in`), pinned, {}, '{}', timeouts)).toEqual({ status: null, error: 'connection refused' });
  });
});
