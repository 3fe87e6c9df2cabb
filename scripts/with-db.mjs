#!/usr/bin/env node
/**
 * node scripts/with-db.mjs <command> [args...]
 * Runs the command with DATABASE_URL set: the caller's DATABASE_URL if any, otherwise the URL of the
 * project-local PostgreSQL cluster (created and started when needed, see local-postgres.mjs). Likewise
 * CHAIN_RPC_URL: the caller's if any, otherwise the embedded development chain (an anvil, see
 * local-chain.mjs).
 * stdio is inherited, SIGINT/SIGTERM/SIGHUP are forwarded and the command's exit status is returned.
 *
 * The local cluster is left running for the next command, except under CI (env CI set and not
 * "false"/"0") or with LOCAL_PG_STOP_AFTER=1: then a cluster that this run started is stopped at the
 * end, so that repeated CI runs from fresh clones on one machine do not pile up servers and ports.
 * The embedded chain follows the same rule (and LOCAL_CHAIN_STOP_AFTER=1); stopped, it keeps its state.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { ensureLocalChain, LocalChainError, stopLocalChain } from './local-chain.mjs';
import { ensureLocalPostgres, LocalPostgresError, stopLocalPostgres } from './local-postgres.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node scripts/with-db.mjs <command> [args...]\n');
  process.exit(2);
}

const truthy = (v) => Boolean(v) && !/^(false|0|no)$/i.test(v);
const fail = (error) => {
  if (error instanceof LocalChainError) process.stderr.write(`local-chain: ${error.message}\n`);
  else process.stderr.write(`local-postgres: ${error instanceof LocalPostgresError ? error.message : error.stack}\n`);
};

let url = process.env.DATABASE_URL;
let stopAfter = false;
if (!url) {
  try {
    const local = await ensureLocalPostgres();
    url = local.url;
    stopAfter = local.started && (truthy(process.env.CI) || process.env.LOCAL_PG_STOP_AFTER === '1');
  } catch (error) {
    fail(error);
    process.exit(1);
  }
}

let chainUrl = process.env.CHAIN_RPC_URL;
let stopChainAfter = false;
// The project-local chain answers on 127.0.0.1, where the person's own browser reaches it too: the public
// verification page checks anchors through it unless CHAIN_PUBLIC_RPC_URL names another node.
let publicRpcUrl = process.env.CHAIN_PUBLIC_RPC_URL;
if (!chainUrl) {
  try {
    const local = await ensureLocalChain();
    chainUrl = local.url;
    publicRpcUrl ??= local.url;
    stopChainAfter = local.started && (truthy(process.env.CI) || process.env.LOCAL_CHAIN_STOP_AFTER === '1');
  } catch (error) {
    fail(error);
    process.exit(1);
  }
}

const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, DATABASE_URL: url, CHAIN_RPC_URL: chainUrl, ...(publicRpcUrl ? { CHAIN_PUBLIC_RPC_URL: publicRpcUrl } : {}) } });
const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of signals) process.on(signal, forward);

let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  const stops = [];
  if (stopAfter) stops.push(stopLocalPostgres);
  if (stopChainAfter) stops.push(stopLocalChain);
  for (const stop of stops) {
    try {
      await stop();
    } catch (error) {
      fail(error);
    }
  }
}

child.on('error', async (error) => {
  process.stderr.write(`with-db: cannot run ${command}: ${error.message}\n`);
  await cleanup();
  process.exit(127);
});
child.on('exit', async (code, signal) => {
  await cleanup();
  if (signal) {
    // Die of the same signal, so that our parent sees what happened to the command.
    for (const s of signals) process.off(s, forward);
    process.kill(process.pid, signal);
    setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 0)), 100).unref();
  } else {
    process.exit(code ?? 1);
  }
});
