import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { waitFor } from './wait.js';

export type Pooler = {
  /** `databaseUrl` with PgBouncer's address: every statement reaches the server through the pooler. */
  url: string;
  /** What PgBouncer wrote (its log). */
  log: () => string;
  stop: () => Promise<void>;
};

/** Where Debian's pgbouncer is, or null (ensure-system.sh --test installs it). */
export function pgbouncerPath(): string | null {
  for (const candidate of ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer']) if (fs.existsSync(candidate)) return candidate;
  const found = spawnSync('sh', ['-c', 'command -v pgbouncer'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Debian's PgBouncer (1.18: no prepared statements in transaction mode) in front of `databaseUrl`'s
 * server, in transaction mode, as managed PostgreSQL offerings run it: consecutive statements outside
 * a transaction may reach different server sessions, and startup parameters it does not know are refused.
 * It refuses to run as root: then it runs as the `postgres` system user (the local cluster's owner).
 */
export async function startPgBouncer(databaseUrl: string, options: { poolSize?: number } = {}): Promise<Pooler> {
  const binary = pgbouncerPath();
  if (!binary) throw new Error('pgbouncer is not installed (sh scripts/ensure-system.sh --test installs it)');
  const server = new URL(databaseUrl);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-pgbouncer-'));
  const port = await freePort();
  const user = decodeURIComponent(server.username || 'postgres');
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `"${user}" "${decodeURIComponent(server.password)}"\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      `auth_type = ${server.password ? 'plain' : 'trust'}`,
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 500',
      'server_reset_query =',
      `admin_users = ${user}`,
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const asRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;
  if (asRoot) spawnSync('chown', ['-R', 'postgres', dir]);
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const log = () => output + (fs.existsSync(path.join(dir, 'pgbouncer.log')) ? fs.readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : '');
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited: ${log()}`);
    // Its admin console, not a database: the first sign-in to a database makes PgBouncer open a server
    // session for the server's parameters, which would predate the role's settings the service sets at start.
    const console = new URL(url);
    console.pathname = '/pgbouncer';
    const client = new pg.Client({ connectionString: console.toString() });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SHOW VERSION');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }, 20_000);
  return {
    url: url.toString(),
    log,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
