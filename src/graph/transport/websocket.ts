import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from 'pino';

/**
 * The largest message a client may send over graphql-ws: the same as the largest `/graphql` body
 * over HTTP. ws's own default (100 MiB) let five anonymous `connection_init` messages exhaust the heap.
 */
const WS_MAX_PAYLOAD_BYTES = 256 * 1024;
/** Bytes queued for a client that does not read: past this the socket is closed, not buffered on. */
const WS_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Messages one socket may send in ten seconds (pings and operations alike). */
const WS_MESSAGES_PER_10S = 200;
/** Bytes one socket may send in ten seconds: a few of the largest documents, not a stream. */
const WS_BYTES_PER_10S = 4 * 1024 * 1024;
/** The largest ping or pong message: graphql-ws keep-alives carry nothing worth more. */
const WS_MAX_PING_BYTES = 1024;

export type GuardedWebSocketServer = {
  wss: WebSocketServer;
  clientAddressOf: (request: IncomingMessage) => string;
  watchOperations: (socket: WebSocket, operations: OperationsOf, stillValid: StillValid | null) => void;
  recheckCredentials: () => Promise<void>;
  takeOverSocketErrors: () => void;
  close: () => void;
};

export type WebSocketLimits = {
  /** Open sockets at once, all clients together. */
  maxConnections: number;
  /** Open sockets at once from one client address. */
  maxConnectionsPerClient: number;
  /** An acknowledged socket with no operation running and no message for this long is closed. */
  idleSeconds: number;
  /** A socket that has not sent `connection_init` within this is closed (graphql-ws closes it: 4408). */
  initTimeoutMs: number;
};

/** What graphql-ws's context gives for a socket: enough to tell whether it has an operation running. */
type OperationsOf = () => number;

/** Whether the credentials a socket was opened with still hold (a revoked key, an expired session: no). */
type StillValid = () => Promise<boolean>;

type Tracked = { client: string; lastMessageAt: number; operations: OperationsOf | null; stillValid: StillValid | null; messages: number; bytes: number; windowStart: number };

/**
 * The WebSocket server of `/graphql` with bounded memory per socket and in all: small messages,
 * connections capped in total and per client address (refused at the upgrade with 503 or 429 and
 * Retry-After), a socket whose client does not read closed once its queue passes a limit, pong
 * answers without the ping's payload (graphql-ws echoes it: a never-reading client sending large
 * pings grew the heap until the process died), a message rate per socket, and idle sockets closed.
 */
export function guardedWebSocketServer(
  server: Server,
  path: string,
  limits: WebSocketLimits,
  clientAddressOf: (request: IncomingMessage) => string,
  logger: Logger,
): GuardedWebSocketServer {
  const tracked = new Map<WebSocket, Tracked>();
  const perClient = new Map<string, number>();
  const wss = new WebSocketServer({
    server,
    path,
    maxPayload: WS_MAX_PAYLOAD_BYTES,
    // No per-message compression: a small compressed frame could inflate into a large message.
    perMessageDeflate: false,
    verifyClient: ({ req }, answer) => {
      const client = clientAddressOf(req);
      if (tracked.size >= limits.maxConnections) return answer(false, 503, 'Too many open connections', { 'Retry-After': '30' });
      if ((perClient.get(client) ?? 0) >= limits.maxConnectionsPerClient) {
        return answer(false, 429, 'Too many open connections from this client address', { 'Retry-After': '30' });
      }
      answer(true);
    },
  });
  // Registered before graphql-ws's own listener: the socket is guarded before anything is sent on it.
  wss.on('connection', (socket, request) => {
    const client = clientAddressOf(request);
    const now = Date.now();
    const state: Tracked = { client, lastMessageAt: now, operations: null, stillValid: null, messages: 0, bytes: 0, windowStart: now };
    tracked.set(socket, state);
    perClient.set(client, (perClient.get(client) ?? 0) + 1);
    socket.once('close', () => {
      tracked.delete(socket);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left <= 0) perClient.delete(client);
      else perClient.set(client, left);
    });
    socket.on('message', (data: Buffer) => {
      const at = Date.now();
      state.lastMessageAt = at;
      if (at - state.windowStart > 10_000) {
        state.windowStart = at;
        state.messages = 0;
        state.bytes = 0;
      }
      state.messages += 1;
      state.bytes += data.length;
      // No closing handshake for a flood: its sender may not be reading either.
      const flood =
        state.messages > WS_MESSAGES_PER_10S ? 'too many messages'
        : state.bytes > WS_BYTES_PER_10S ? 'too many bytes'
        : data.length > WS_MAX_PING_BYTES && isKeepAlive(data) ? 'an oversized ping'
        : null;
      if (flood) {
        logger.info({ client, flood }, 'websocket closed: flood');
        socket.terminate();
      }
    });
    const send = socket.send.bind(socket) as (data: unknown, ...rest: unknown[]) => void;
    (socket as { send: (data: unknown, ...rest: unknown[]) => void }).send = (data, ...rest) => {
      // A pong carries no payload back: echoing it doubles what a client can make us hold.
      const outgoing = typeof data === 'string' && data.startsWith('{"type":"pong","payload"') ? '{"type":"pong"}' : data;
      const size = typeof outgoing === 'string' ? Buffer.byteLength(outgoing) : 0;
      const callback = rest.find((value) => typeof value === 'function') as ((error?: Error) => void) | undefined;
      const options = rest.find((value) => typeof value === 'object' && value !== null);
      if (socket.readyState !== socket.OPEN) return callback?.();
      if (socket.bufferedAmount + size > WS_MAX_BUFFERED_BYTES) {
        logger.info({ client, buffered: socket.bufferedAmount }, 'websocket closed: the client does not read');
        socket.terminate();
        return callback?.();
      }
      // A write that fails because the socket is gone is no error of the operation's: the socket's close cleans up.
      send(outgoing, options ?? {}, () => callback?.());
    };
  });
  const sweep = setInterval(() => {
    const idleBefore = Date.now() - limits.idleSeconds * 1000;
    for (const [socket, state] of tracked) {
      if (state.operations && state.operations() === 0 && state.lastMessageAt < idleBefore) socket.close(1000, 'Idle');
    }
  }, Math.min(10_000, Math.max(250, (limits.idleSeconds * 1000) / 4)));
  sweep.unref();
  const recheck = setInterval(() => void guarded.recheckCredentials(), 60_000);
  recheck.unref();
  const guarded: GuardedWebSocketServer = {
    wss,
    clientAddressOf,
    /** Called once a socket is acknowledged: from then on it is idle when none of its operations runs. */
    watchOperations: (socket, operations, stillValid) => {
      const state = tracked.get(socket);
      if (state) {
        state.operations = operations;
        state.stillValid = stillValid;
      }
    },
    /**
     * Checks again every socket opened with credentials (on a revocation or merge, and every minute
     * for expiry): one whose credentials no longer hold is closed with 4403, its subscriptions with it.
     */
    recheckCredentials: async () => {
      for (const [socket, state] of [...tracked]) {
        if (!state.stillValid) continue;
        const valid = await state.stillValid().catch(() => true);
        if (!valid && socket.readyState === socket.OPEN) socket.close(4403, 'Forbidden');
      }
    },
    /**
     * Called after graphql-ws is attached: its listener writes every socket error (a client's
     * oversized message included) to the console with a stack, a log flood any client can cause.
     * Socket errors are the client's or the network's; ws has already closed the socket.
     */
    takeOverSocketErrors: () => {
      wss.on('connection', (socket, request) => {
        for (const listener of socket.listeners('error')) socket.removeListener('error', listener as (error: Error) => void);
        socket.on('error', (error) => {
          logger.debug({ err: error, client: clientAddressOf(request) }, 'websocket error');
          socket.terminate();
        });
      });
    },
    close: () => {
      clearInterval(sweep);
      clearInterval(recheck);
    },
  };
  return guarded;
}

/** Whether a message is a graphql-ws ping or pong (by its opening bytes: no need to parse it). */
function isKeepAlive(data: Buffer): boolean {
  const head = data.subarray(0, 64).toString('latin1').replace(/\s+/g, '');
  return head.startsWith('{"type":"ping"') || head.startsWith('{"type":"pong"');
}

/**
 * The client address of a request as express computes `req.ip` with the app's `trust proxy`: the
 * socket's peer, or, while that hop is trusted, the next address of X-Forwarded-For from the right.
 */
export function clientAddressResolver(trusted: (address: string, hop: number) => boolean): (request: IncomingMessage) => string {
  return (request) => {
    const peer = request.socket.remoteAddress ?? 'unknown';
    const header = request.headers['x-forwarded-for'];
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .reverse();
    let address = peer;
    for (let hop = 0; hop < forwarded.length && trusted(address, hop); hop += 1) address = forwarded[hop]!;
    return address;
  };
}
