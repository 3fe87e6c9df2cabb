/**
 * An HTTP server on 127.0.0.1 in front of a service, as a load balancer would be: it forwards every
 * request, except that the next request for a path it was told of gets a `503` with `Retry-After`
 * (the service's own `unavailable` answer) instead, once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export class UnavailableFront {
  private readonly unavailable = new Map<string, number>();
  private server: http.Server | null = null;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    const target = new URL(this.target);
    this.server = http.createServer((req, res) => {
      const key = `${req.method} ${new URL(req.url ?? '/', 'http://front').pathname}`;
      const retryAfter = this.unavailable.get(key);
      if (retryAfter !== undefined) {
        this.unavailable.delete(key);
        req.resume();
        const body = JSON.stringify({ detail: 'The database cannot be reached; try again shortly', error_code: 'unavailable' });
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(retryAfter) }).end(body);
        return;
      }
      const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** The next `method` request for `path` gets a 503 asking to wait `retryAfterSeconds`. */
  unavailableOnce(method: string, path: string, retryAfterSeconds: number): void {
    this.unavailable.set(`${method} ${path}`, retryAfterSeconds);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
