import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../support/harness.js';
import { until } from '../support/subscriptions.js';

type Frame = { type: string; id?: string; payload?: any };

/** A raw graphql-ws client: every frame it receives, and how its socket closed. */
function rawSocket(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws', { headers, maxPayload: 64 * 1024 * 1024 });
  const frames: Frame[] = [];
  const state = { open: false, closed: null as null | { code: number; reason: string }, refused: null as null | number };
  socket.on('open', () => (state.open = true));
  socket.on('message', (data: Buffer) => void frames.push(JSON.parse(data.toString()) as Frame));
  socket.on('close', (code, reason) => (state.closed = { code, reason: String(reason) }));
  socket.on('unexpected-response', (_request, response) => {
    state.refused = response.statusCode ?? 0;
    state.closed = { code: 0, reason: String(response.statusCode) };
  });
  socket.on('error', () => undefined);
  const opened = () => until(() => state.open || state.closed !== null, 'the socket to open', 10_000);
  return { socket, frames, state, opened, send: (frame: Frame) => socket.send(JSON.stringify(frame)) };
}

const heapMiB = () => process.memoryUsage().heapUsed / 2 ** 20;

/**
 * graphql-ws on /graphql cannot be used to exhaust the process: messages are small, a client that
 * does not read is cut off, sockets are capped and idle ones closed, and documents meet the same
 * limits as over HTTP, refused with the same codes.
 */
describe('GraphQL over WebSocket limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ WS_IDLE_SECONDS: '2', WS_MAX_CONNECTIONS_PER_CLIENT: '1100', GRAPHQL_INTROSPECTION: 'true' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('closes sockets that send an oversized connection_init (1009), and stays up', async () => {
    const before = heapMiB();
    const sockets = Array.from({ length: 5 }, () => rawSocket(t.url));
    await Promise.all(sockets.map((s) => s.opened()));
    const big = 'x'.repeat(4 * 1024 * 1024);
    for (const s of sockets) s.send({ type: 'connection_init', payload: { authorization: big } });
    await until(() => sockets.every((s) => s.state.closed !== null), 'every socket to be closed', 20_000);
    expect(sockets.map((s) => s.state.closed!.code)).toEqual([1009, 1009, 1009, 1009, 1009]);
    expect(sockets.every((s) => s.frames.length === 0)).toBe(true);
    expect((await t.request('GET', '/health')).status).toBe(200);
    global.gc?.();
    expect(heapMiB() - before).toBeLessThan(64);
  });

  it('answers a ping with an empty pong, and cuts off a client that floods pings without reading', async () => {
    const reader = rawSocket(t.url);
    await reader.opened();
    reader.send({ type: 'connection_init' });
    await until(() => reader.frames.some((f) => f.type === 'connection_ack'), 'the ack');
    reader.send({ type: 'ping', payload: { echo: 'y'.repeat(500) } });
    await until(() => reader.frames.some((f) => f.type === 'pong'), 'the pong');
    expect(reader.frames.find((f) => f.type === 'pong')).toEqual({ type: 'pong' });
    reader.socket.close();

    const flooder = rawSocket(t.url);
    await flooder.opened();
    flooder.send({ type: 'connection_init' });
    await until(() => flooder.frames.some((f) => f.type === 'connection_ack'), 'the ack');
    // Stops reading, then sends 256 KiB pings (just under the message limit) as fast as it can.
    (flooder.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const ping = JSON.stringify({ type: 'ping', payload: { p: 'z'.repeat(256 * 1024 - 40) } });
    const deadline = Date.now() + 20_000;
    while (flooder.state.closed === null && flooder.socket.readyState === WebSocket.OPEN && Date.now() < deadline) {
      flooder.socket.send(ping);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Cut off: the server closed the socket (seen once the client reads again) well before 20 s.
    (flooder.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    await until(() => flooder.state.closed !== null, 'the flooding socket to be closed', 20_000);
    expect(Date.now()).toBeLessThan(deadline);
    expect((await t.request('GET', '/health')).status).toBe(200);
  }, 60_000);

  it('terminates a socket whose client stops reading while answers pile up', async () => {
    const slow = rawSocket(t.url);
    await slow.opened();
    slow.send({ type: 'connection_init' });
    await until(() => slow.frames.some((f) => f.type === 'connection_ack'), 'the ack');
    // Each answer is the schema's types and fields, fifteen times over (hundreds of KiB).
    const query = `{ ${Array.from({ length: 15 }, (_, i) => `s${i}: __schema { types { name description fields { name description } } }`).join(' ')} }`;
    slow.send({ id: 'probe', type: 'subscribe', payload: { query } });
    await until(() => slow.frames.some((f) => f.id === 'probe' && f.type === 'next'), 'the first answer');
    const answerBytes = JSON.stringify(slow.frames.find((f) => f.id === 'probe' && f.type === 'next')).length;
    const needed = Math.ceil((24 * 2 ** 20) / answerBytes);
    expect(needed).toBeLessThan(150);
    (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    // 24 MiB of answers, more than the kernel's socket buffers hold; nothing reads them.
    for (let i = 0; i < needed && slow.socket.readyState === WebSocket.OPEN; i += 1) {
      slow.send({ id: String(i), type: 'subscribe', payload: { query } });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await until(() => t.logs().includes('websocket closed: the client does not read'), 'the server to cut the client off', 20_000);
    slow.socket.terminate();
  }, 60_000);

  it('closes 1,000 sockets that never send connection_init, and stays within its memory', async () => {
    const before = process.memoryUsage().rss / 2 ** 20;
    const sockets: ReturnType<typeof rawSocket>[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const opened = Array.from({ length: 100 }, () => rawSocket(t.url));
      await Promise.all(opened.map((s) => s.opened()));
      sockets.push(...opened);
    }
    expect(sockets.filter((s) => s.state.open)).toHaveLength(1000);
    // graphql-ws closes each after its init wait (3 s): 4408.
    await until(() => sockets.every((s) => s.state.closed !== null), 'every idle socket to be closed', 30_000);
    expect(new Set(sockets.map((s) => s.state.closed!.code))).toEqual(new Set([4408]));
    expect(process.memoryUsage().rss / 2 ** 20 - before).toBeLessThan(150);
    expect((await t.request('GET', '/health')).status).toBe(200);
  }, 90_000);

  it('closes an acknowledged socket that idles with nothing running', async () => {
    const idle = rawSocket(t.url);
    await idle.opened();
    idle.send({ type: 'connection_init' });
    await until(() => idle.frames.some((f) => f.type === 'connection_ack'), 'the ack');
    await until(() => idle.state.closed !== null, 'the idle socket to be closed', 15_000);
    expect(idle.state.closed).toEqual({ code: 1000, reason: 'Idle' });
  }, 30_000);

  it('closes a socket opened with an API key (4403) once the key is revoked, its subscription with it', async () => {
    const token = await t.signIn('ws-revoke@example.com');
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'], name: 'live feed' } });
    expect(created.status).toBe(201);
    const s = rawSocket(t.url);
    await s.opened();
    s.send({ type: 'connection_init', payload: { 'x-api-key': created.body.key } });
    await until(() => s.frames.some((f) => f.type === 'connection_ack'), 'the ack');
    s.send({ id: 'feed', type: 'subscribe', payload: { query: 'subscription { recordActivity { recordId } }' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(s.state.closed).toBeNull();
    const revoked = await t.request('DELETE', `/api/v1/api-keys/${created.body.id}`, { token });
    expect(revoked.status).toBe(204);
    await until(() => s.state.closed !== null, 'the socket to be closed', 10_000);
    expect(s.state.closed).toEqual({ code: 4403, reason: 'Forbidden' });
  });

  it('refuses a document nested 200 deep before parsing it, over HTTP and WebSocket alike', async () => {
    const deep = `{ ${'verifyRecord(reference: "AGR-0000-0000") { '.repeat(1)}${'a { '.repeat(200)}b${' }'.repeat(200)} } }`;
    const http = await t.graphql(deep);
    expect(http.status).toBe(400);
    expect(http.body.errors![0]).toMatchObject({ extensions: { code: 'graphql_parse_failed' } });
    expect(http.body.errors![0].message).toMatch(/nesting/);

    const s = rawSocket(t.url);
    await s.opened();
    s.send({ type: 'connection_init' });
    await until(() => s.frames.some((f) => f.type === 'connection_ack'), 'the ack');
    s.send({ id: 'deep', type: 'subscribe', payload: { query: deep } });
    // 3,000 tokens: refused by the parser's token limit, as over HTTP.
    s.send({ id: 'long', type: 'subscribe', payload: { query: `{ ${'__typename '.repeat(3000)} }` } });
    // An unknown field: the client's mistake, answered as over HTTP and not logged as the service's.
    s.send({ id: 'unknown', type: 'subscribe', payload: { query: '{ noSuchField }' } });
    await until(() => s.frames.filter((f) => f.type === 'error').length === 3, 'three refusals');
    const errorOf = (id: string) => s.frames.find((f) => f.type === 'error' && f.id === id)!.payload[0];
    expect(errorOf('deep')).toMatchObject({ extensions: { code: 'graphql_parse_failed' } });
    expect(errorOf('long')).toMatchObject({ extensions: { code: 'graphql_parse_failed' } });
    expect(errorOf('long').message).toMatch(/token/i);
    expect(errorOf('unknown')).toMatchObject({ extensions: { code: 'validation_error' } });
    const overHttp = await t.graphql('{ noSuchField }');
    expect(overHttp.body.errors![0].extensions.code).toBe('validation_error');
    expect(t.logs()).not.toContain('unexpected error');
    s.socket.close();
  });
});

describe('GraphQL over WebSocket connection caps', () => {
  it('refuses sockets past the per-client cap with 429 and Retry-After', async () => {
    const t = await startTestApp({ WS_MAX_CONNECTIONS_PER_CLIENT: '5' });
    try {
      const sockets = Array.from({ length: 7 }, () => rawSocket(t.url));
      await until(() => sockets.every((s) => s.state.open || s.state.closed !== null), 'every socket to open or be refused', 10_000);
      expect(sockets.filter((s) => s.state.open)).toHaveLength(5);
      expect(sockets.filter((s) => s.state.refused === 429)).toHaveLength(2);
      for (const s of sockets) s.socket.terminate();
      // Closed sockets free their places.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = rawSocket(t.url);
      await again.opened();
      expect(again.state.open).toBe(true);
      again.socket.terminate();
    } finally {
      await t.stop();
    }
  });

  it('refuses sockets past the total cap with 503 and Retry-After', async () => {
    const t = await startTestApp({ WS_MAX_CONNECTIONS: '3', WS_MAX_CONNECTIONS_PER_CLIENT: '100' });
    try {
      const sockets = Array.from({ length: 4 }, () => rawSocket(t.url));
      await until(() => sockets.every((s) => s.state.open || s.state.closed !== null), 'every socket to open or be refused', 10_000);
      expect(sockets.filter((s) => s.state.open)).toHaveLength(3);
      expect(sockets.filter((s) => s.state.refused === 503)).toHaveLength(1);
      for (const s of sockets) s.socket.terminate();
    } finally {
      await t.stop();
    }
  });
});
