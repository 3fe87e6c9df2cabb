#!/usr/bin/env node
/**
 * A project-local PostgreSQL cluster for development and tests (plain Node ESM, builtins only; runs
 * under Node 20 and 24).
 *
 *   import { ensureDatabaseUrl } from './local-postgres.mjs';
 *   node scripts/local-postgres.mjs [start|url|stop|status]
 *
 * ensureDatabaseUrl():
 * - DATABASE_URL set: returned unchanged, no cluster is touched.
 * - Otherwise: a cluster of the project's own, under .local/postgres (data/, run/ for the socket,
 *   postgres.log), listening on 127.0.0.1:54329 (env LOCAL_PG_PORT overrides; when that variable is
 *   not set and 54329 is taken by another program, e.g. the cluster of another checkout, the next free
 *   port up to 54349 is used). It is created (initdb, trust auth, user postgres) and started when
 *   needed, reused when it already runs, and left running afterwards. A database named record_signing
 *   is created if missing. Returns postgres://postgres@127.0.0.1:PORT/record_signing.
 * - Server binaries: `pg_config --bindir`, the newest /usr/lib/postgresql/N/bin, /usr/pgsql-N/bin or
 *   initdb on PATH. If none and we are root with apt-get (Debian/Ubuntu), `apt-get install
 *   postgresql` (the package may create and start a system cluster on 5432: it is not used here).
 *   Otherwise it fails with a message asking for PostgreSQL >= 14 or DATABASE_URL.
 * - As root: initdb and pg_ctl refuse to run as root, so they run as the `postgres` system user
 *   (`runuser -u postgres --`) and .local/postgres is owned by that user. That user must be able to
 *   reach the folder: the repository folder and .local get o+x (traverse only, no listing) if they
 *   lack it, but folders above the repository are never changed: if one of them is closed to
 *   postgres (a clone under /root, mode 700, or under a `mktemp -d` folder), the cluster lives in
 *   /tmp/rss-pg-<hash of the repository path> instead.
 * - Unix socket paths are limited to 107 bytes: if run/.s.PGSQL.PORT would be longer, the socket
 *   goes to /tmp. Clients here use TCP anyway.
 * - A lock folder (.local/postgres.lock) serializes concurrent callers.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { choosePort, runAsCli, sleep, tail, withLockDir } from './local-services.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DB_NAME = 'record_signing';
const DEFAULT_PORT = 54329;
const PORT_FALLBACKS = 20;
const SERVER_USER = 'postgres';
const IS_ROOT = typeof process.geteuid === 'function' && process.geteuid() === 0;
const PATH_HASH = createHash('sha256').update(ROOT).digest('hex').slice(0, 10);
const LOCK_DIR = path.join(ROOT, '.local', 'postgres.lock');
const MIN_MAJOR = 14;

export class LocalPostgresError extends Error {}

const log = (message) => process.stderr.write(`local-postgres: ${message}\n`);
const exists = (p) => fs.existsSync(p);

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** process.env without PG* variables (PGPORT, PGOPTIONS, PGSSLMODE... would change what the tools do). */
function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v;
  return { ...env, LC_ALL: 'C', ...extra };
}

let serverUserCache = null; // only found users are cached: apt-get may create the user later
function serverUser() {
  if (serverUserCache) return serverUserCache;
  const uid = spawnSync('id', ['-u', SERVER_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SERVER_USER], { encoding: 'utf8' });
  if (uid.status === 0 && gid.status === 0) {
    serverUserCache = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  }
  return serverUserCache;
}

function requireServerUser() {
  const user = serverUser();
  if (!user) {
    throw new LocalPostgresError(
      `running as root, but there is no '${SERVER_USER}' system user to own the local cluster ` +
        `(PostgreSQL refuses to run as root). Create it (useradd --system ${SERVER_USER}), ` +
        'run as a non-root user, or set DATABASE_URL.',
    );
  }
  return user;
}

const hasRunuser = () => isExecutable('/usr/sbin/runuser') || isExecutable('/sbin/runuser') || isExecutable('/usr/bin/runuser');

/**
 * Runs a command and collects its output. asServerUser: as root, run it as the postgres user.
 * detached: own session, so that a server started by pg_ctl does not get the terminal's Ctrl-C.
 */
function run(cmd, args, { asServerUser = false, detached = false, env, stdio } = {}) {
  let file = cmd;
  let argv = args;
  const options = { cwd: '/', env: cleanEnv(env), stdio: stdio ?? ['ignore', 'pipe', 'pipe'], detached };
  if (asServerUser && IS_ROOT) {
    if (hasRunuser()) {
      file = 'runuser';
      argv = ['-u', SERVER_USER, '--', cmd, ...args];
    } else {
      const { uid, gid } = requireServerUser();
      Object.assign(options, { uid, gid });
    }
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, options);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('error', reject);
    // 'exit' rather than only 'close': never wait on pipes that a background process might keep.
    child.on('exit', (code, signal) => {
      const done = () => resolve({ code: code ?? 128, signal, stdout, stderr });
      let settled = false;
      child.on('close', () => !settled && ((settled = true), done()));
      setTimeout(() => !settled && ((settled = true), done()), 500).unref();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Binaries

function majorOf(bindir) {
  const r = spawnSync(path.join(bindir, 'postgres'), ['--version'], { encoding: 'utf8', env: cleanEnv() });
  const m = /(\d+)(?:\.(\d+))?/.exec(r.stdout ?? '');
  return m ? Number(m[1]) : null;
}

function numericDirs(parent, pattern) {
  try {
    return fs
      .readdirSync(parent)
      .filter((n) => pattern.test(n))
      .sort((a, b) => Number(b.replace(/\D+/g, '')) - Number(a.replace(/\D+/g, '')));
  } catch {
    return [];
  }
}

/** The folder holding initdb, pg_ctl and postgres, or null. preferMajor: version of existing data. */
function findBinDir(preferMajor) {
  const candidates = [];
  if (preferMajor) candidates.push(`/usr/lib/postgresql/${preferMajor}/bin`, `/usr/pgsql-${preferMajor}/bin`);
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8', env: cleanEnv() });
  if (pgConfig.status === 0 && pgConfig.stdout.trim()) candidates.push(pgConfig.stdout.trim());
  for (const v of numericDirs('/usr/lib/postgresql', /^\d+(\.\d+)?$/)) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  for (const v of numericDirs('/usr', /^pgsql-\d+$/)) candidates.push(`/usr/${v}/bin`);
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const initdb = path.join(dir || '.', 'initdb');
    if (isExecutable(initdb)) candidates.push(path.dirname(fs.realpathSync(initdb)));
  }
  const usable = candidates.filter((d) => ['initdb', 'pg_ctl', 'postgres'].every((b) => isExecutable(path.join(d, b))));
  if (preferMajor) return usable.find((d) => majorOf(d) === preferMajor) ?? usable[0] ?? null;
  return usable[0] ?? null;
}

async function installWithApt() {
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const stdio = ['ignore', 2, 2]; // keep our stdout clean (the CLI prints the URL there)
  for (const args of [
    ['update'],
    ['install', '-y', '--no-install-recommends', '-o', 'Dpkg::Options::=--force-confold', 'postgresql'],
  ]) {
    log(`apt-get ${args.join(' ')}`);
    const r = await run('apt-get', args, { env, stdio });
    if (r.code !== 0) {
      log(`apt-get ${args[0]} failed with exit code ${r.code}`);
      return false;
    }
  }
  return true;
}

async function ensureBinDir(preferMajor) {
  let dir = findBinDir(preferMajor);
  if (dir) return dir;
  if (IS_ROOT && (isExecutable('/usr/bin/apt-get') || isExecutable('/bin/apt-get'))) {
    log('PostgreSQL server binaries not found: installing the Debian package "postgresql"...');
    if (await installWithApt()) dir = findBinDir(preferMajor);
    if (dir) return dir;
  }
  throw new LocalPostgresError(
    'PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found. ' +
      `Install PostgreSQL >= ${MIN_MAJOR} (Debian/Ubuntu: sudo apt-get install postgresql; ` +
      'macOS: brew install postgresql), or point the service at an existing server with ' +
      'DATABASE_URL=postgres://USER:PASSWORD@HOST:PORT/DATABASE (a user allowed to create databases).',
  );
}

function psqlBin(bindir) {
  const own = path.join(bindir, 'psql');
  return isExecutable(own) ? own : 'psql';
}

// ---------------------------------------------------------------------------------------------
// Layout and permissions

/** Whether a user can traverse (x) dir, by its mode bits (supplementary groups and ACLs ignored). */
function canTraverse(dir, { uid, gid }) {
  const st = fs.statSync(dir);
  if (uid === 0) return true;
  if (st.uid === uid) return (st.mode & 0o100) !== 0;
  if (st.gid === gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

function ancestors(dir) {
  const out = [];
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    out.unshift(d);
    if (d === path.dirname(d)) return out;
  }
}

function layout() {
  let base = path.join(ROOT, '.local', 'postgres');
  let inRepo = true;
  if (IS_ROOT) {
    const user = serverUser();
    // Folders above the repository are not ours to chmod: if postgres cannot pass one of them, use /tmp.
    if (user && !ancestors(ROOT).every((d) => canTraverse(d, user))) {
      base = `/tmp/rss-pg-${PATH_HASH}`;
      inRepo = false;
    }
  }
  let sockDir = path.join(base, 'run');
  if (Buffer.byteLength(path.join(sockDir, '.s.PGSQL.65535')) > 107) sockDir = '/tmp';
  return {
    base,
    inRepo,
    data: path.join(base, 'data'),
    sockDir,
    logFile: path.join(base, 'postgres.log'),
    marker: path.join(base, 'initdb.done'),
  };
}

/** Creates base (and run/) so that the server user owns them and can reach them. */
function prepareDirs(l) {
  fs.mkdirSync(l.base, { recursive: true, mode: 0o755 });
  if (l.sockDir.startsWith(l.base)) fs.mkdirSync(l.sockDir, { recursive: true, mode: 0o755 });
  if (!IS_ROOT) return;
  const user = requireServerUser();
  if (l.inRepo) {
    for (const d of [ROOT, path.join(ROOT, '.local'), l.base]) {
      if (!canTraverse(d, user)) fs.chmodSync(d, fs.statSync(d).mode | 0o001);
    }
  } else {
    const st = fs.lstatSync(l.base);
    if (!st.isDirectory() || (st.uid !== 0 && st.uid !== user.uid)) {
      throw new LocalPostgresError(`${l.base} exists and is not owned by root or ${SERVER_USER}; remove it`);
    }
  }
  fs.chownSync(l.base, user.uid, user.gid);
  if (l.sockDir.startsWith(l.base)) fs.chownSync(l.sockDir, user.uid, user.gid);
}

// ---------------------------------------------------------------------------------------------
// Cluster state

function isPostgresProcess(pid) {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (e.code !== 'EPERM') return false;
  }
  try {
    // Guards against a stale postmaster.pid whose pid now belongs to another program.
    const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return comm === 'postgres' || comm === 'postmaster';
  } catch {
    return true; // no /proc (macOS): trust kill(pid, 0)
  }
}

/** { pid, port, status } of the server running on this data folder, or null. */
function runningServer(data) {
  let text;
  try {
    text = fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port || !isPostgresProcess(pid)) return null;
  return { pid, port, status: (lines[7] ?? '').trim() };
}

function psqlArgs(port, sql) {
  return ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', sql];
}

async function query(bindir, port, sql) {
  return run(psqlBin(bindir), psqlArgs(port, sql), { env: { PGCONNECT_TIMEOUT: '5' } });
}

async function waitUntilReady(bindir, port, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await query(bindir, port, 'select 1');
    if (r.code === 0) return;
    if (Date.now() > deadline) {
      throw new LocalPostgresError(`the local PostgreSQL on port ${port} does not answer: ${r.stderr.trim()}`);
    }
    await sleep(250);
  }
}

async function ensureDatabase(bindir, port) {
  const found = await query(bindir, port, `select 1 from pg_database where datname = '${DB_NAME}'`);
  if (found.code !== 0) throw new LocalPostgresError(`psql failed: ${found.stderr.trim()}`);
  if (found.stdout.trim() === '1') return;
  const created = await query(bindir, port, `create database ${DB_NAME}`);
  if (created.code !== 0 && !/already exists/.test(created.stderr)) {
    throw new LocalPostgresError(`could not create database ${DB_NAME}: ${created.stderr.trim()}`);
  }
  log(`created database ${DB_NAME}`);
}

function dataMajor(l) {
  try {
    return Number(fs.readFileSync(path.join(l.data, 'PG_VERSION'), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

async function initCluster(l, bindir) {
  if (exists(l.data)) {
    log(`removing the incomplete data folder ${l.data}`);
    fs.rmSync(l.data, { recursive: true, force: true });
    fs.rmSync(l.marker, { force: true });
  }
  log(`creating a PostgreSQL cluster in ${l.data}`);
  const r = await run(
    path.join(bindir, 'initdb'),
    ['-D', l.data, '-A', 'trust', '-U', 'postgres', '--encoding=UTF8', '--no-locale'],
    { asServerUser: true },
  );
  if (r.code !== 0) throw new LocalPostgresError(`initdb failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  fs.writeFileSync(l.marker, `${new Date().toISOString()}\n`);
}

const shellQuote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

async function startCluster(l, bindir) {
  const port = await choosePort({
    envVar: 'LOCAL_PG_PORT',
    urlVar: 'DATABASE_URL',
    defaultPort: DEFAULT_PORT,
    fallbacks: PORT_FALLBACKS,
    ErrorClass: LocalPostgresError,
    log,
  });
  // 300 connections: the suite runs several multi-instance tests at once (three production instances and a
  // seed each, with their pools, job queues and listeners), past PostgreSQL's default 100.
  const options = `-p ${port} -k ${shellQuote(l.sockDir)} -c listen_addresses=127.0.0.1 -c max_connections=300`;
  log(`starting PostgreSQL on 127.0.0.1:${port} (log: ${l.logFile})`);
  const r = await run(
    path.join(bindir, 'pg_ctl'),
    ['start', '-D', l.data, '-l', l.logFile, '-w', '-t', '60', '-s', '-o', options],
    { asServerUser: true, detached: true },
  );
  const server = runningServer(l.data);
  if (r.code !== 0 || !server) {
    throw new LocalPostgresError(
      `pg_ctl start failed (exit ${r.code}) ${r.stderr.trim()}\n--- ${l.logFile} ---\n${tail(l.logFile)}`,
    );
  }
  return server.port;
}

/** An apt-get install may hold the lock for minutes. */
const withLock = (fn) => withLockDir(LOCK_DIR, fn, { waitMs: 20 * 60_000, ErrorClass: LocalPostgresError, log });

// ---------------------------------------------------------------------------------------------
// API

/** The URL of the project-local cluster, starting (and creating) it when needed. */
export async function startLocalPostgres() {
  return (await ensureLocalPostgres()).url;
}

/** Like startLocalPostgres; also tells whether this call started the server (started: true). */
export async function ensureLocalPostgres() {
  return withLock(async () => {
    let l = layout();
    const bindir = await ensureBinDir(dataMajor(l));
    l = layout(); // again: installing PostgreSQL may just have created the postgres user
    const server = runningServer(l.data);
    let port;
    let started = false;
    if (server) {
      port = server.port;
      const wanted = process.env.LOCAL_PG_PORT;
      if (wanted && Number(wanted) !== port) {
        log(`the local cluster already runs on port ${port}, not LOCAL_PG_PORT=${wanted}; stop it first to change`);
      }
    } else {
      prepareDirs(l);
      const major = majorOf(bindir);
      if (major && major < MIN_MAJOR) log(`warning: PostgreSQL ${major} found; ${MIN_MAJOR} or newer is expected`);
      if (!exists(l.marker) || !exists(path.join(l.data, 'PG_VERSION'))) await initCluster(l, bindir);
      const existing = dataMajor(l);
      if (existing && major && existing !== major) {
        throw new LocalPostgresError(
          `${l.data} was created by PostgreSQL ${existing} but only PostgreSQL ${major} was found; ` +
            `remove ${l.base} to recreate the local cluster (its data is lost)`,
        );
      }
      port = await startCluster(l, bindir);
      started = true;
    }
    await waitUntilReady(bindir, port);
    await ensureDatabase(bindir, port);
    return { url: `postgres://postgres@127.0.0.1:${port}/${DB_NAME}`, started };
  });
}

/** DATABASE_URL if set, else the URL of the project-local cluster (started when needed). */
export async function ensureDatabaseUrl() {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  return startLocalPostgres();
}

/** Stops the project-local cluster if it runs. Returns whether it was running. */
export async function stopLocalPostgres() {
  return withLock(async () => {
    const l = layout();
    if (!runningServer(l.data)) return false;
    const bindir = await ensureBinDir(dataMajor(l));
    const r = await run(path.join(bindir, 'pg_ctl'), ['stop', '-D', l.data, '-m', 'fast', '-w', '-t', '60', '-s'], {
      asServerUser: true,
    });
    if (r.code !== 0) throw new LocalPostgresError(`pg_ctl stop failed (exit ${r.code}): ${r.stderr.trim()}`);
    return true;
  });
}

/** { running, port, dataDir } of the project-local cluster, without starting it. */
export function localPostgresStatus() {
  const l = layout();
  const server = runningServer(l.data);
  return { running: Boolean(server), port: server?.port ?? null, dataDir: l.data };
}

/**
 * A throwaway cluster of its own (for tests that restart, stop or freeze the server without touching
 * the shared one): created in a new folder under the system's temporary folder, started on a free
 * loopback port, removed by `remove()`. `freeze()` stops every server process (SIGSTOP: the server
 * holds its connections but answers nothing), `thaw()` lets them go on.
 */
export async function startScratchPostgres() {
  const bindir = await ensureBinDir(null);
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-scratch-pg-'));
  const l = { base, inRepo: false, data: path.join(base, 'data'), sockDir: base, logFile: path.join(base, 'postgres.log'), marker: path.join(base, 'initdb.done') };
  if (IS_ROOT) {
    const user = requireServerUser();
    fs.chownSync(base, user.uid, user.gid);
  }
  await initCluster(l, bindir);
  const port = await freePort();
  const pgCtl = (args) => run(path.join(bindir, 'pg_ctl'), args, { asServerUser: true, detached: true });
  const start = async () => {
    const r = await pgCtl(['start', '-D', l.data, '-l', l.logFile, '-w', '-t', '60', '-s', '-o', `-p ${port} -k ${shellQuote(l.sockDir)} -c listen_addresses=127.0.0.1`]);
    if (r.code !== 0) throw new LocalPostgresError(`pg_ctl start failed (exit ${r.code}) ${r.stderr.trim()}\n${tail(l.logFile)}`);
    await waitUntilReady(bindir, port);
  };
  const stop = async () => {
    if (!runningServer(l.data)) return;
    const r = await pgCtl(['stop', '-D', l.data, '-m', 'fast', '-w', '-t', '60', '-s']);
    if (r.code !== 0) throw new LocalPostgresError(`pg_ctl stop failed (exit ${r.code}): ${r.stderr.trim()}`);
  };
  const signalAll = (signal) => {
    const server = runningServer(l.data);
    if (!server) return;
    const pids = [server.pid, ...childrenOf(server.pid)];
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        // that process has just ended
      }
    }
  };
  await start();
  await ensureDatabase(bindir, port);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${DB_NAME}`,
    start,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    remove: async () => {
      signalAll('SIGCONT');
      await stop();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** The pids whose parent is `pid` (from /proc). */
function childrenOf(pid) {
  const children = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return children;
}

/** A loopback port nobody listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// CLI

async function main(command = 'start') {
  switch (command) {
    case 'start': {
      const url = await ensureDatabaseUrl();
      log(process.env.DATABASE_URL ? 'DATABASE_URL is set: no local cluster needed' : `ready: ${url}`);
      process.stdout.write(`${url}\n`);
      return 0;
    }
    case 'url':
      process.stdout.write(`${await ensureDatabaseUrl()}\n`);
      return 0;
    case 'stop':
      log((await stopLocalPostgres()) ? 'stopped' : 'not running');
      return 0;
    case 'status': {
      const s = localPostgresStatus();
      process.stdout.write(s.running ? `running on 127.0.0.1:${s.port} (${s.dataDir})\n` : `not running (${s.dataDir})\n`);
      return s.running ? 0 : 3;
    }
    default:
      process.stderr.write('usage: node scripts/local-postgres.mjs [start|url|stop|status]\n');
      return 2;
  }
}

runAsCli(import.meta.url, main, { name: 'local-postgres', ErrorClass: LocalPostgresError });
