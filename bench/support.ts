/**
 * What the benchmarks share: a database of their own, the service and the reference in their own
 * processes (compiled bench scripts, `{ ready: url }` over IPC), the mail those processes hand over,
 * and the calls a client makes (sign in with the mailed code, sign with an email code).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import pg from 'pg';

export type Mail = { to: string; subject: string; text: string };
export type Started = { child: ChildProcess; url: string };
/** The service's memory when asked: now, its peak resident size (bytes), after a full collection, resident by mapping. */
export type ServiceMemory = NodeJS.MemoryUsage & { peak: number; collected: NodeJS.MemoryUsage; mappings: Record<string, number> };

/**
 * The service's process as `npm start` sets it up, read from package.json's start script so the
 * benches measure what it runs: glibc's malloc settings before `node scripts/with-db.mjs` (README:
 * MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) and the Node/V8 flags before
 * `dist/src/main.js` (the heap's limit, HEAP_LIMIT_MIB, and its young generation; no Sparkplug or
 * Maglev code). `${NAME:-default}` is the caller's NAME, else the default. BENCH_NODE_FLAGS come
 * after the flags and win.
 */
function startScript(): { env: Record<string, string>; flags: string[] } {
  const script: string = JSON.parse(readFileSync(path.resolve('package.json'), 'utf8')).scripts.start;
  const expand = (text: string) => text.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => process.env[name] ?? fallback);
  const command = /node scripts\/with-db\.mjs node (.*?) ?dist\/src\/main\.js/.exec(script);
  if (!command) throw new Error(`package.json's start script no longer runs "node scripts/with-db.mjs node <flags> dist/src/main.js": ${script}`);
  const settings = script.slice(0, command.index).matchAll(/(\w+)=(\$\{\w+:-[^}]*\}|\S+)/g);
  return {
    env: Object.fromEntries([...settings].map(([, name, value]) => [name!, expand(value!)])),
    flags: command[1]!.split(' ').filter(Boolean).map(expand),
  };
}
const { env: MALLOC_SETTINGS, flags: SERVICE_NODE_FLAGS } = startScript();

/**
 * The mail the services handed over, in order. A client waiting for a code is woken when mail
 * arrives, not by polling: the harness shares the machine's cores with the service it measures.
 */
export class Mailbox {
  readonly all: Mail[] = [];
  private waiters = new Set<() => void>();

  push(mail: Mail): void {
    this.all.push(mail);
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  /** The first mail from index `since` on that matches, waiting up to `timeoutMs` for it. */
  async find(matches: (mail: Mail) => boolean, since: number, timeoutMs = 10_000): Promise<Mail | undefined> {
    const deadline = performance.now() + timeoutMs;
    let from = since;
    for (;;) {
      for (; from < this.all.length; from += 1) if (matches(this.all[from]!)) return this.all[from];
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (this.waiters.delete(wake), resolve()), left);
        const wake = () => (clearTimeout(timer), resolve());
        this.waiters.add(wake);
      });
    }
  }
}

export class Bench {
  readonly mail = new Mailbox();
  private readonly children: ChildProcess[] = [];

  private constructor(
    private readonly admin: pg.Client,
    private readonly database: string,
    readonly databaseUrl: string,
  ) {}

  /** A fresh database `<prefix>_<pid>` next to DATABASE_URL's (dropped by `close`). */
  static async open(prefix: string): Promise<Bench> {
    const adminUrl = process.env.DATABASE_URL;
    if (!adminUrl) throw new Error('DATABASE_URL is required (npm run bench sets it)');
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    const database = `${prefix}_${process.pid}`;
    await admin.query(`create database ${database}`);
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    return new Bench(admin, database, url.toString());
  }

  /** Forks a compiled bench script on this database and waits for its `{ ready: url }`. */
  async start(script: string, options: { execArgv?: string[]; env?: Record<string, string> } = {}): Promise<Started> {
    const child = fork(path.join(import.meta.dirname, script), [], {
      // As `npm start` runs it: a few malloc arenas shared by all threads, and a fixed mmap threshold
      // (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_: README).
      env: { ...MALLOC_SETTINGS, ...process.env, ...options.env, DATABASE_URL: this.databaseUrl },
      execArgv: ['--expose-gc', ...SERVICE_NODE_FLAGS, ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []), ...(options.execArgv ?? [])],
    });
    this.children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      child.on('message', (message: { ready?: string; mail?: Mail }) => {
        if (message.mail) this.mail.push(message.mail);
        if (message.ready) resolve(message.ready);
      });
      child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    });
    return { child, url };
  }

  /** The service's memory (process.memoryUsage()) as it answers over IPC, and after a full collection. */
  async memory(service: Started): Promise<ServiceMemory> {
    const answer = new Promise<ServiceMemory>((resolve) => {
      const listener = (message: { memory?: NodeJS.MemoryUsage; peak?: number; collected: NodeJS.MemoryUsage; mappings?: Record<string, number> }) => {
        if (!message.memory) return;
        service.child.off('message', listener);
        resolve({ ...message.memory, peak: message.peak ?? Number.NaN, collected: message.collected, mappings: message.mappings ?? {} });
      };
      service.child.on('message', listener);
    });
    service.child.send({ memory: true });
    return answer;
  }

  /** The CPU time the service's process has used so far (user and system, µs), as it answers over IPC. */
  async cpu(service: Started): Promise<number> {
    const answer = new Promise<number>((resolve) => {
      const listener = (message: { cpu?: NodeJS.CpuUsage }) => {
        if (!message.cpu) return;
        service.child.off('message', listener);
        resolve(message.cpu.user + message.cpu.system);
      };
      service.child.on('message', listener);
    });
    service.child.send({ cpu: true });
    return answer;
  }

  /**
   * Samples the service's resident size (/proc/<pid>/status VmRSS) every 50 ms, by phase: `phase(name)`
   * starts one; `peaks()` answers each phase's highest figure in bytes (Linux; empty elsewhere).
   */
  residentSampler(service: Started): { phase(name: string): void; peaks(): Map<string, number>; stop(): void } {
    const peaks = new Map<string, number>();
    let current = 'start';
    const sample = () => {
      try {
        const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'));
        if (kib) peaks.set(current, Math.max(peaks.get(current) ?? 0, Number(kib[1]) * 1024));
      } catch {
        // Not Linux, or the service has exited.
      }
    };
    const timer = setInterval(sample, 50);
    return {
      phase: (name) => {
        sample();
        current = name;
      },
      peaks: () => (sample(), peaks),
      stop: () => clearInterval(timer),
    };
  }

  /** Stops one service (its `stop`, then its exit). */
  async stop(service: Started): Promise<void> {
    const child = service.child;
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.send({ stop: true });
    await exited;
  }

  async close(): Promise<void> {
    for (const child of this.children) await this.stop({ child, url: '' });
    if (process.env.BENCH_KEEP_DATABASE !== '1') await this.admin.query(`drop database if exists ${this.database} with (force)`);
    await this.admin.end();
  }

  /** A client of one service: JSON calls, sign-in and email-code signing. */
  client(service: Started): BenchClient {
    return new BenchClient(service.url, this.mail);
  }
}

export class BenchClient {
  constructor(
    readonly url: string,
    private readonly mail: Mailbox,
  ) {}

  async call(method: string, route: string, body?: unknown, token?: string): Promise<any> {
    const response = await fetch(this.url + route, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status >= 400) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  async codeMailed(to: string, subject: string, since: number): Promise<string> {
    const found = await this.mail.find((m) => m.to === to && m.subject === subject, since);
    if (!found) throw new Error(`no "${subject}" mail to ${to}`);
    return /code is (\d{6})/.exec(found.text)![1]!;
  }

  async signIn(email: string): Promise<string> {
    const since = this.mail.all.length;
    const requested = await this.call('POST', '/api/v1/verification/request-otp', { email, purpose: 'authenticate' });
    const code = await this.codeMailed(email, 'Your sign-in code', since);
    return (await this.call('POST', '/api/v1/verification/verify-otp', { verification_event_id: requested.verification_event_id, code })).access_token;
  }

  /**
   * The caller's ceremony with one email code: start or resume, start the method, submit the
   * mailed code, finalize. `timed` sees each step's milliseconds (pauses and the wait for the mail
   * excluded).
   */
  async sign(token: string, email: string, record: string, timed: (ms: number, step: string) => void = () => undefined, thinkMs = 0): Promise<any> {
    const base = `/api/v1/agreements/${record}/signature-execution`;
    const step = async (route: string, body?: unknown) => {
      // A person's pace: a random pause of up to twice `thinkMs` before each step (none by default).
      if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * thinkMs));
      const started = performance.now();
      const answer = await this.call('POST', route, body, token);
      timed(performance.now() - started, route.slice(base.length) || '/');
      return answer;
    };
    await step(base);
    const since = this.mail.all.length;
    await step(`${base}/methods/email_otp/start`, {});
    await step(`${base}/methods/email_otp/submit`, { code: await this.codeMailed(email, 'Your signature code', since) });
    return step(`${base}/finalize`, {});
  }
}

export const agreement = (body: string, party: string) => ({
  body,
  on_chain_full_text: false,
  on_chain_include_verified_parties: false,
  parties: [{ display_name: 'Party', contact_point_value: party }],
});

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** BENCH_ONLY (comma-separated keys): run only those paths, e.g. to profile one of them. */
const ONLY = process.env.BENCH_ONLY?.split(',').map((key) => key.trim());

export function selected(key: string): boolean {
  return !ONLY || ONLY.includes(key);
}
