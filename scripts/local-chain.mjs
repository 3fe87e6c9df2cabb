#!/usr/bin/env node
/**
 * The embedded development chain: a project-local anvil (from the npm package @foundry-rs/anvil, whose
 * binary ships inside the package) for `npm start` and the tests when CHAIN_RPC_URL is unset. Plain
 * Node ESM, builtins only, like local-postgres.mjs.
 *
 *   import { ensureChainRpcUrl } from './local-chain.mjs';
 *   node scripts/local-chain.mjs [start|url|stop|status]
 *
 * ensureChainRpcUrl():
 * - CHAIN_RPC_URL set: returned unchanged, no chain is touched.
 * - Otherwise: anvil on 127.0.0.1:54545 (env LOCAL_CHAIN_PORT overrides; when that variable is not set
 *   and 54545 is taken by another program, the next free port up to 54565 is used), chain id 31337,
 *   started when needed, reused when it already runs (.local/chain/anvil.pid), left running afterwards.
 *   Returns http://127.0.0.1:PORT.
 * - The chain lives in .local/chain/state.json: anvil loads it at start, writes it every
 *   STATE_INTERVAL seconds (a crash loses at most that) and when stopped with SIGTERM. Blocks,
 *   transactions, receipts and logs are kept, so a transaction anchored yesterday still verifies today.
 *   Deleting the folder starts a fresh chain (the registry is then deployed again, see
 *   src/domain/anchoring/viem-chain.ts, which remembers its address in .local/chain/registry.json).
 * - A lock folder (.local/chain.lock) serializes concurrent callers.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { choosePort, runAsCli, sleep, tail, withLockDir } from './local-services.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_PORT = 54545;
const PORT_FALLBACKS = 20;
export const LOCAL_CHAIN_ID = 31337;
const STATE_INTERVAL = 2;
const LOCK_DIR = path.join(ROOT, '.local', 'chain.lock');

export class LocalChainError extends Error {}

const log = (message) => process.stderr.write(`local-chain: ${message}\n`);

/** Where the chain keeps its files. base: LOCAL_CHAIN_DIR (tests: a private chain) or .local/chain. */
export function chainLayout(base = process.env.LOCAL_CHAIN_DIR || path.join(ROOT, '.local', 'chain')) {
  return {
    base,
    state: path.join(base, 'state.json'),
    pidFile: path.join(base, 'anvil.pid'),
    logFile: path.join(base, 'anvil.log'),
    registryFile: path.join(base, 'registry.json'),
  };
}

/** The anvil binary: the platform package's native binary (so our pid is anvil's), else the npm wrapper. */
export function anvilBinary() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch] ?? process.arch;
  const native = path.join(ROOT, 'node_modules', '@foundry-rs', `anvil-${process.platform}-${arch}`, 'bin', 'anvil');
  if (fs.existsSync(native)) return native;
  const wrapper = path.join(ROOT, 'node_modules', '.bin', 'anvil');
  if (fs.existsSync(wrapper)) return wrapper;
  throw new LocalChainError('anvil was not found: run npm install (the package @foundry-rs/anvil ships it), or set CHAIN_RPC_URL');
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function isAnvilProcess(pid) {
  if (!isAlive(pid)) return false;
  try {
    // Guards against a stale pid file whose pid now belongs to another program.
    const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    return comm === 'anvil' || comm === 'node';
  } catch {
    return true; // no /proc (macOS): trust kill(pid, 0)
  }
}

/** JSON-RPC call with a short timeout; resolves to the result or throws. */
export async function rpc(url, method, params = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(2000),
  });
  const body = await response.json();
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

/** { pid, port } of the anvil running for this layout, or null. */
function runningChain(l) {
  let info;
  try {
    info = JSON.parse(fs.readFileSync(l.pidFile, 'utf8'));
  } catch {
    return null;
  }
  if (!info?.pid || !info?.port || !isAnvilProcess(info.pid)) return null;
  return info;
}

/** Arguments of an anvil that keeps its chain in l.state. */
export function anvilArgs(l, port) {
  return [
    '--host', '127.0.0.1',
    '--port', String(port),
    '--chain-id', String(LOCAL_CHAIN_ID),
    '--state', l.state,
    '--state-interval', String(STATE_INTERVAL),
    '--silent',
  ];
}

async function waitUntilReady(url, child, l, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rpc(url, 'eth_chainId');
      return;
    } catch {
      // not up yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      throw new LocalChainError(`anvil did not start on ${url}\n--- ${l.logFile} ---\n${tail(l.logFile)}`);
    }
    await sleep(100);
  }
}

async function startChain(l, port) {
  fs.mkdirSync(l.base, { recursive: true });
  const out = fs.openSync(l.logFile, 'a');
  const child = spawn(anvilBinary(), anvilArgs(l, port), { cwd: l.base, detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  child.unref();
  const url = `http://127.0.0.1:${port}`;
  await waitUntilReady(url, child, l);
  fs.writeFileSync(l.pidFile, JSON.stringify({ pid: child.pid, port }));
  return url;
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** The lock of a chain folder: .local/chain.lock for the embedded one, <dir>.lock for a private one. */
function withLock(l, fn) {
  const lockDir = l.base === path.join(ROOT, '.local', 'chain') ? LOCK_DIR : `${l.base}.lock`;
  return withLockDir(lockDir, fn, { waitMs: 5 * 60_000, ErrorClass: LocalChainError, log });
}

// ---------------------------------------------------------------------------------------------
// API

/**
 * The RPC URL of the project-local chain, starting it when needed; started tells whether this call
 * started it. dir: another folder than .local/chain (tests run private chains this way).
 */
export async function ensureLocalChain({ dir, port } = {}) {
  const l = chainLayout(dir);
  return withLock(l, async () => {
    const running = runningChain(l);
    if (running) {
      const url = `http://127.0.0.1:${running.port}`;
      try {
        await rpc(url, 'eth_chainId');
        return { url, started: false, pid: running.pid };
      } catch {
        throw new LocalChainError(`anvil (pid ${running.pid}) runs but does not answer on ${url}; stop it with: npm run chain -- stop`);
      }
    }
    const chosen =
      port ??
      (await choosePort({
        envVar: 'LOCAL_CHAIN_PORT',
        urlVar: 'CHAIN_RPC_URL',
        defaultPort: DEFAULT_PORT,
        fallbacks: PORT_FALLBACKS,
        ErrorClass: LocalChainError,
        log,
      }));
    const url = await startChain(l, chosen);
    return { url, started: true, pid: runningChain(l)?.pid ?? null };
  });
}

/** CHAIN_RPC_URL if set, else the URL of the project-local chain (started when needed). */
export async function ensureChainRpcUrl() {
  if (process.env.CHAIN_RPC_URL) return process.env.CHAIN_RPC_URL;
  return (await ensureLocalChain()).url;
}

/** Stops the project-local chain (it writes its state first). Returns whether it was running. */
export async function stopLocalChain({ dir } = {}) {
  const l = chainLayout(dir);
  return withLock(l, async () => {
    const running = runningChain(l);
    if (!running) return false;
    process.kill(running.pid, 'SIGTERM');
    if (!(await waitForExit(running.pid, 15_000))) {
      log(`anvil (pid ${running.pid}) did not stop in 15 s; killing it (state up to the last interval is kept)`);
      process.kill(running.pid, 'SIGKILL');
      await waitForExit(running.pid, 5_000);
    }
    fs.rmSync(l.pidFile, { force: true });
    return true;
  });
}

/** { running, url, dir } of the project-local chain, without starting it. */
export function localChainStatus({ dir } = {}) {
  const l = chainLayout(dir);
  const running = runningChain(l);
  return { running: Boolean(running), url: running ? `http://127.0.0.1:${running.port}` : null, dir: l.base };
}

// ---------------------------------------------------------------------------------------------
// CLI

async function main(command = 'start') {
  switch (command) {
    case 'start':
    case 'url': {
      const url = await ensureChainRpcUrl();
      if (command === 'start') log(process.env.CHAIN_RPC_URL ? 'CHAIN_RPC_URL is set: no local chain needed' : `ready: ${url}`);
      process.stdout.write(`${url}\n`);
      return 0;
    }
    case 'stop':
      log((await stopLocalChain()) ? 'stopped' : 'not running');
      return 0;
    case 'status': {
      const s = localChainStatus();
      process.stdout.write(s.running ? `running on ${s.url} (${s.dir})\n` : `not running (${s.dir})\n`);
      return s.running ? 0 : 3;
    }
    default:
      process.stderr.write('usage: node scripts/local-chain.mjs [start|url|stop|status]\n');
      return 2;
  }
}

runAsCli(import.meta.url, main, { name: 'local-chain', ErrorClass: LocalChainError });
