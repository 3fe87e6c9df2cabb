/**
 * A webhook receiver on 127.0.0.1: records every request (headers and the body's exact bytes) per
 * path and answers as each path is told to (a status, a sequence of statuses, or never).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { path: string; headers: Record<string, string>; body: string; at: number };

/**
 * What a path answers: a status for every request, statuses in turn (the last repeats), a status
 * with a body of so many bytes, or `hang` (never answers).
 */
export type Behaviour = number | number[] | { status: number; bytes: number } | 'hang';

export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly counts = new Map<string, number>();
  private readonly hanging = new Set<http.ServerResponse>();
  private server: http.Server | null = null;
  url = '';

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
        this.received.push({ path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        const seen = this.counts.get(path) ?? 0;
        this.counts.set(path, seen + 1);
        const behaviour = this.behaviours.get(path) ?? 200;
        if (behaviour === 'hang') {
          this.hanging.add(res);
          return;
        }
        if (typeof behaviour === 'object' && !Array.isArray(behaviour)) return void res.writeHead(behaviour.status).end(Buffer.alloc(behaviour.bytes, 'a'));
        const status = Array.isArray(behaviour) ? behaviour[Math.min(seen, behaviour.length - 1)]! : behaviour;
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  answer(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `path` has received at least `count` requests. */
  async waitFor(path: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.at(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.at(path).length} of ${count} requests within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return this.at(path);
  }

  /** Ends every request left hanging (its sender sees the connection close). */
  hangUp(): void {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
