import net from 'node:net';
import { startTestApp, type TestApp } from '../support/harness.js';
import { contractViolation } from '../support/contract.js';
import { BODY_LIMITS } from '../../src/graph/transport/body-limits.js';

/** What the client announces: 50 MiB, of which it sends only the first bytes. */
const ANNOUNCED = 52_428_800;

type Answer = { status: number; headers: Record<string, string>; body: unknown; closedByService: boolean };

/**
 * Sends a request head and `sent` (the start of its body) over a raw socket, then sends nothing more:
 * a service that waits to read the announced body never answers (`null` after `waitMs`). The answer
 * is read up to the service closing the connection.
 */
function answerWithoutTheBody(url: string, head: string, sent: Buffer[], waitMs = 5000): Promise<Answer | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const received: Buffer[] = [];
    let closedByService = false;
    const settle = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(received).toString('latin1'), closedByService));
    };
    const timer = setTimeout(settle, waitMs);
    socket.on('connect', () => {
      socket.write(head);
      for (const part of sent) socket.write(part);
    });
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('end', () => {
      closedByService = true;
      settle();
    });
    // Writing into a connection the service closed: what it answered before is what counts.
    socket.on('error', settle);
  });
}

function parse(text: string, closedByService: boolean): Answer | null {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return null;
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const rawBody = text.slice(split + 4);
  const body = headers['transfer-encoding'] === 'chunked' ? unchunk(rawBody) : rawBody;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: headers['content-type']?.includes('json') ? JSON.parse(body) : body, closedByService };
}

function unchunk(text: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!size) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

const chunked = (total: number): Buffer[] => {
  const piece = Buffer.alloc(64 * 1024, 'a');
  const chunks: Buffer[] = [];
  for (let sent = 0; sent < total; sent += piece.length) chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  return chunks;
};

describe('Oversized request bodies', () => {
  let t: TestApp;
  let host: string;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    host = new URL(t.url).host;
    token = await t.signIn('oversized@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  // Signed in where the service reads a body only from a caller it knows (REST): the body, not the credentials, is what is refused.
  const head = (path: string, type: string, length: string) =>
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${type}\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer ${token}\r\n${length}\r\n\r\n`;

  const json = 'application/json';
  const form = 'application/x-www-form-urlencoded';
  const oauthShape = { error: 'invalid_request', error_description: 'Request body too large' };
  // Each route in its own error shape.
  const routes = [
    { path: '/graphql', type: json, limit: BODY_LIMITS.graphql, shape: { errors: [{ message: 'Request body too large', extensions: { code: 'payload_too_large' } }] } },
    { path: '/api/v1/agreements', type: json, limit: BODY_LIMITS.rest, shape: { detail: 'Request body too large', error_code: 'payload_too_large' } },
    { path: '/mcp', type: json, limit: BODY_LIMITS.mcp, shape: { jsonrpc: '2.0', error: { code: -32000, message: 'Request body too large' }, id: null } },
    { path: '/oauth/register', type: json, limit: BODY_LIMITS.oauth, shape: oauthShape },
    { path: '/oauth/token', type: form, limit: BODY_LIMITS.oauth, shape: oauthShape },
    { path: '/oauth/consent/some-request/email', type: form, limit: BODY_LIMITS.consentForm, shape: expect.stringContaining('The form sent was too large.') },
  ];

  it.each(routes)('refuses 50 MB announced to $path with 413 before reading it, and closes the connection', async ({ path, type, shape }) => {
    const started = performance.now();
    const answer = await answerWithoutTheBody(t.url, head(path, type, `Content-Length: ${ANNOUNCED}`), [Buffer.from('{"query":"')]);
    // Answered although the body never came: the service did not wait to read it.
    expect(answer).not.toBeNull();
    expect(answer!.status).toBe(413);
    expect(answer!.body).toEqual(shape);
    expect(answer!.headers.connection).toBe('close');
    expect(answer!.closedByService).toBe(true);
    expect(performance.now() - started).toBeLessThan(4000);
    if (path.startsWith('/api/v1')) expect(await contractViolation('POST', t.url + path, 413, answer!.body)).toBeNull();
  });

  it.each(routes)('cuts a chunked body to $path at its limit with 413, without waiting for its end', async ({ path, type, limit, shape }) => {
    const answer = await answerWithoutTheBody(t.url, head(path, type, 'Transfer-Encoding: chunked'), chunked(limit + 128 * 1024));
    expect(answer).not.toBeNull();
    expect(answer!.status).toBe(413);
    expect(answer!.body).toEqual(shape);
    expect(answer!.headers.connection).toBe('close');
  });

  it("refuses a body announced past oidc-provider's own limit on its other endpoints (revocation) the same way", async () => {
    const answer = await answerWithoutTheBody(t.url, head('/oauth/revoke', form, `Content-Length: ${BODY_LIMITS.oauthProvider + 1}`), [Buffer.from('token=')]);
    expect(answer?.status).toBe(413);
    expect(answer!.body).toEqual(oauthShape);
    expect(answer!.closedByService).toBe(true);
  });

  it('closes the connection of a request refused before its body was read (401 on /api/v1), instead of reading the body to its end', async () => {
    const anonymous = `POST /api/v1/agreements HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const answer = await answerWithoutTheBody(t.url, anonymous, [Buffer.from('{"title":')]);
    expect(answer?.status).toBe(401);
    expect(answer!.closedByService).toBe(true);
  });

  it('still reads a body within the limit on a kept-alive connection', async () => {
    const response = await t.graphql('{ __typename }');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({ __typename: 'Query' });
  });
});
