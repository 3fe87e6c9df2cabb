import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { productionSettings } from '../support/production-process.js';
import { freePort } from '../support/chain.js';
import { waitFor } from '../support/wait.js';

/**
 * A rolling restart behind a real balancer: nginx (Debian's, non-sticky, its own configuration in a
 * temporary folder) in front of three instances of the built service in production mode
 * (`dist/src/main.js`, NODE_ENV=production, as an operator runs it), eight clients reading and writing
 * through it without pause, half through GraphQL as the web UI does and half through REST, and each
 * instance stopped with SIGTERM and started again, one after the other. Not one request may fail.
 *
 * The balancer is configured as docs/clean-stop.md says: its upstream keep-alive timeout (2 s) shorter than
 * the drain delay (2.5 s here), so it has closed its idle connections to a stopping instance before
 * the listener closes; passive health (max_fails=1, fail_timeout=1s); and writes passed to the next
 * instance when a connection fails (`non_idempotent`: safe, every write carries an Idempotency-Key).
 */

const repo = path.resolve(import.meta.dirname, '../..');
const DRAIN_MS = 2500;
const CLIENTS = 8;

type Instance = { port: number; child: ChildProcess; output: () => string };

const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((candidate) => fs.existsSync(candidate));

(nginx ? describe : describe.skip)('a rolling restart behind nginx', () => {
  let seed: TestApp;
  let folder: string;
  let balancer: ChildProcess | undefined;
  const instances: Instance[] = [];

  beforeAll(async () => {
    // The seed app migrates a database of the test's own and signs the clients in; it takes no traffic.
    [seed, production] = await Promise.all([startTestApp(), productionSettings()]);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-rolling-'));
  });

  afterAll(async () => {
    for (const instance of instances) instance.child.kill('SIGKILL');
    balancer?.kill('SIGQUIT');
    await seed?.stop();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
    if (production) fs.rmSync(production.dir, { recursive: true, force: true });
  });

  let production: Awaited<ReturnType<typeof productionSettings>>;
  // The built service in production mode, as an operator runs it (production-process.ts): only this reaches it.
  const env = (port: number) => ({
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'production',
    ...production.env,
    DATABASE_URL: seed.databaseUrl,
    SMTP_URL: seed.config.smtpUrl!,
    PORT: String(port),
    HOST: '127.0.0.1',
    CHAIN_RPC_URL: '',
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: 'warn',
    SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    SHUTDOWN_TIMEOUT_MS: '30000',
    JOB_LOCK_SECONDS: '2',
    GRAPHQL_OPERATIONS_PER_MINUTE: '1000000',
    CLIENT_CODE_CALLS_PER_HOUR: '100000',
    CLIENT_VERIFICATIONS_PER_MINUTE: '100000',
  });

  const startInstance = async (port: number): Promise<Instance> => {
    const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: repo, env: env(port), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`instance on ${port} exited: ${output.slice(-2000)}`);
      const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null);
      return ready?.status === 200;
    }, 120_000);
    return { port, child, output: () => output };
  };

  const startBalancer = async (ports: number[]): Promise<string> => {
    const port = await freePort();
    const temp = (name: string) => `${name}_temp_path ${path.join(folder, name)};`;
    const conf = `
${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
master_process on;
worker_processes 1;
pid ${path.join(folder, 'nginx.pid')};
error_log ${path.join(folder, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  upstream service {
    ${ports.map((p) => `server 127.0.0.1:${p} max_fails=1 fail_timeout=1s;`).join('\n    ')}
    keepalive 32;
    keepalive_timeout 2s;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://service;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_connect_timeout 2s;
      proxy_next_upstream error timeout non_idempotent;
      proxy_next_upstream_tries 3;
    }
  }
}`;
    const file = path.join(folder, 'nginx.conf');
    fs.writeFileSync(file, conf);
    const check = spawnSync(nginx!, ['-t', '-q', '-p', folder, '-c', file], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
    balancer = spawn(nginx!, ['-p', folder, '-c', file], { stdio: 'ignore' });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/health`).catch(() => null))?.status === 200, 30_000);
    return url;
  };

  it('restarts three instances one by one under steady reads and writes with no failed request', async () => {
    const tokens = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => seed.signIn(`rolling-${i}@example.com`)));
    const drafts = await Promise.all(
      tokens.map(async (token) => {
        const created = await seed.request('POST', '/api/v1/agreements', { token, body: agreementBody() });
        expect(created.status).toBe(201);
        return created.body.id as string;
      }),
    );
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    instances.push(...(await Promise.all(ports.map(startInstance))));
    const url = await startBalancer(ports);

    const failures: string[] = [];
    const stoppedOutputs: string[] = [];
    const counts = { reads: 0, writes: 0, creates: 0 };
    let running = true;
    const call = async (what: string, method: string, route: string, token: string, body?: unknown): Promise<void> => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': randomUUID() });
      try {
        const response = await fetch(url + route, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await response.text();
        if (response.status >= 300) failures.push(`${what} ${method} ${route}: ${response.status} ${text.slice(0, 300)}`);
      } catch (error) {
        const cause = (error as Error).cause;
        failures.push(`${what} ${method} ${route}: ${(error as Error).message} ${cause instanceof Error ? cause.message : ''}`);
      }
    };
    /** The web UI's path: GraphQL over HTTP, a write with an Idempotency-Key (nginx may pass it to the next instance). */
    const graphql = async (what: string, token: string, query: string, variables: Record<string, unknown>, write: boolean): Promise<void> => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(write ? { 'idempotency-key': randomUUID() } : {}) };
      try {
        const response = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
        const text = await response.text();
        if (response.status !== 200 || text.includes('"errors"')) failures.push(`${what} POST /graphql: ${response.status} ${text.slice(0, 300)}`);
      } catch (error) {
        const cause = (error as Error).cause;
        failures.push(`${what} POST /graphql: ${(error as Error).message} ${cause instanceof Error ? cause.message : ''}`);
      }
    };
    const client = async (i: number) => {
      const token = tokens[i]!;
      const id = drafts[i]!;
      // Half the clients are the web UI (GraphQL), half integrations (REST).
      const ui = i % 2 === 0;
      for (let round = 0; running; round += 1) {
        if (ui) await graphql('read', token, 'query Read($id: String!) { record(id: $id) { id title status } }', { id }, false);
        else await call('read', 'GET', `/api/v1/agreements/${id}`, token);
        counts.reads += 1;
        if (ui) await graphql('write', token, 'mutation Write($id: String!, $title: String) { updateAgreement(id: $id, input: { title: $title }) { id title } }', { id, title: `Round ${round} of client ${i}` }, true);
        else await call('write', 'PATCH', `/api/v1/agreements/${id}`, token, { title: `Round ${round} of client ${i}` });
        counts.writes += 1;
        if (round % 10 === 0) {
          await call('create', 'POST', '/api/v1/agreements', token, agreementBody({ title: `Made in round ${round}` }));
          counts.creates += 1;
        }
      }
    };
    const load = Array.from({ length: CLIENTS }, (_, i) => client(i));

    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const [index, instance] of instances.entries()) {
      const stopped = new Promise<number | null>((resolve) => instance.child.once('exit', (code) => resolve(code)));
      instance.child.kill('SIGTERM');
      // Readiness says 503 at once, while the instance still serves (a balancer with health checks takes it out).
      const ready = await waitFor(async () => {
        const answer = await fetch(`http://127.0.0.1:${instance.port}/health/ready`).catch(() => null);
        return answer?.status === 503 ? ((await answer.json()) as { checks: Record<string, string> }) : null;
      }, 5000);
      expect(ready.checks).toEqual({ shutdown: 'stopping' });
      const served = await fetch(`http://127.0.0.1:${instance.port}/health`);
      expect(served.status).toBe(200);
      expect(served.headers.get('connection')).toBe('close');
      expect(await stopped).toBe(0);
      expect(instance.output()).not.toMatch(/did not finish in time|shutdown failed/);
      stoppedOutputs.push(instance.output());
      instances[index] = await startInstance(instance.port);
      // nginx takes the instance back after fail_timeout.
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    running = false;
    await Promise.all(load);

    // What the instances logged at level 50 (error) is the first thing to read when a request failed.
    const errors = [...stoppedOutputs, ...instances.map((instance) => instance.output())].flatMap((output) => output.split('\n').filter((line) => line.includes('"level":50')));
    expect({ failures, errors: failures.length ? errors.slice(0, 5) : [] }).toEqual({ failures: [], errors: [] });
    expect(counts.writes).toBeGreaterThan(50);
    expect(counts.reads).toBeGreaterThan(50);
    // Every write landed once: each draft has the title of its client's last round.
    for (const [i, id] of drafts.entries()) {
      const read = await seed.request('GET', `/api/v1/agreements/${id}`, { token: tokens[i] });
      expect(read.body.title).toMatch(new RegExp(`^Round \\d+ of client ${i}$`));
    }
  }, 600_000);
});
