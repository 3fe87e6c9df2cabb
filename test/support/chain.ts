/**
 * A private anvil per test file (a real chain, never a mock): its own folder, state file and free
 * port, started through scripts/local-chain.mjs so the tests exercise the embedded chain's script.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ensureLocalChain, stopLocalChain } from '../../scripts/local-chain.mjs';

export type PrivateChain = {
  url: string;
  dir: string;
  /** Stops anvil (it writes its state file first). */
  stop: () => Promise<void>;
  /** Starts it again on the same port and state. */
  start: () => Promise<void>;
  /** Stops it and removes its folder. */
  destroy: () => Promise<void>;
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startPrivateChain(): Promise<PrivateChain> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-chain-'));
  const port = await freePort();
  const { url } = await ensureLocalChain({ dir, port });
  return {
    url,
    dir,
    stop: async () => {
      await stopLocalChain({ dir });
    },
    start: async () => {
      await ensureLocalChain({ dir, port });
    },
    destroy: async () => {
      await stopLocalChain({ dir });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the chain reports the transaction mined (anvil mines at once, but answers the send first). */
export async function waitMined(chain: { confirmation: (txHash: `0x${string}`) => Promise<{ state: string }> }, txHash: `0x${string}`): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await chain.confirmation(txHash)).state === 'mined') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`transaction ${txHash} was not mined`);
}
