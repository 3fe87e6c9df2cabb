import { Server as NetServer, type Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * The HTTP side of a clean stop. `begin()` marks the instance as stopping: readiness answers 503 and
 * every answer from then on carries `Connection: close`, so a balancer takes the instance out of its
 * rotation and each keep-alive connection ends after the request it is serving, while the listener
 * keeps accepting for the drain delay. `close()` then stops accepting, waits for the requests in
 * flight, and gives the remaining (idle keep-alive) connections until `quietMs` to be closed by their
 * clients before cutting them.
 *
 * Idle keep-alive connections are never cut while the listener serves: a balancer may be sending a
 * request on one at that very moment, and that request would fail with "connection reset by peer"
 * (what `http.Server.close()` does since Node 19, by `closeIdleConnections`).
 */
export type HttpDrain = {
  readonly stopping: boolean;
  /** Readiness 503 and `Connection: close` from now on. */
  begin(): void;
  /** Marks one answer (call for every request, first thing). */
  mark(req: IncomingMessage, res: ServerResponse): void;
  /** Stops accepting; resolves when the requests in flight are answered. */
  stopAccepting(): Promise<void>;
  /** Resolves when every connection has ended, cutting those still open after `quietMs`. */
  quiet(quietMs: number): Promise<void>;
  /** Requests being answered now. */
  inFlight(): number;
};

export function httpDrain(server: Server): HttpDrain {
  let stopping = false;
  let inFlight = 0;
  let settled: (() => void) | null = null;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const whenAllClosed = () =>
    new Promise<void>((resolve) => {
      if (sockets.size === 0) return resolve();
      let left = sockets.size;
      for (const socket of sockets) socket.once('close', () => --left === 0 && resolve());
    });
  return {
    get stopping() {
      return stopping;
    },
    begin() {
      stopping = true;
    },
    mark(_req, res) {
      if (stopping) res.setHeader('Connection', 'close');
      inFlight += 1;
      res.once('close', () => {
        inFlight -= 1;
        if (inFlight === 0) settled?.();
      });
    },
    async stopAccepting() {
      stopping = true;
      // net.Server's close, not http.Server's: it stops accepting without cutting idle keep-alive sockets.
      NetServer.prototype.close.call(server);
      if (inFlight > 0) await new Promise<void>((resolve) => (settled = resolve));
    },
    async quiet(quietMs) {
      // Idle keep-alive sockets left: their clients close them (a balancer's upstream keep-alive timeout
      // should be shorter than the server's), or the server's own keep-alive timeout does; then cut.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, quietMs)));
      await Promise.race([whenAllClosed(), late]);
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      // http.Server's own close now has nothing left to cut; it clears the server's timers.
      server.close(() => undefined);
    },
    inFlight: () => inFlight,
  };
}
