import { createPublicClient, decodeEventLog, getAbiItem, http, type Log, type PublicClient } from 'viem';
import { AnchorChainError, type AnchorReader, type AnchorTransaction, type FoundAnchor, type Hex } from './chain.js';
import { batchRoot, buildBatch, toBytes32 } from './merkle.js';
import { registryAbi } from './registry-artifact.js';

/**
 * The read side of the registry: finds anchors and reads anchoring transactions through the logs and
 * storage of any node, with nothing from our service. The offline verifier uses it alone; the viem
 * adapter adds the write side.
 */
const leafAnchored = getAbiItem({ abi: registryAbi, name: 'LeafAnchored' });
const anchored = getAbiItem({ abi: registryAbi, name: 'Anchored' });

/** The RPC URL as it may appear in messages: its origin only (a provider key often sits in the path). */
export function describeRpc(rpcUrl: string): string {
  try {
    return new URL(rpcUrl).origin;
  } catch {
    return 'the chain RPC';
  }
}

/** A viem/transport failure as an AnchorChainError with a short reason (no request bodies, no URLs). */
export function chainFailure(rpcUrl: string, what: string, error: unknown): AnchorChainError {
  if (error instanceof AnchorChainError) return error;
  const e = error as { name?: string; details?: unknown; shortMessage?: unknown; message?: unknown };
  const transport = ['HttpRequestError', 'TimeoutError', 'WebSocketRequestError', 'SocketClosedError'].includes(e.name ?? '');
  const reason = typeof e.details === 'string' && e.details ? e.details : typeof e.shortMessage === 'string' ? e.shortMessage : 'unknown error';
  return new AnchorChainError(
    transport ? 'unreachable' : 'rejected',
    `${what} failed at ${describeRpc(rpcUrl)}: ${transport ? 'chain node unreachable' : 'node answered with an error'} (${reason.split('\n')[0]?.slice(0, 200)})`,
  );
}

export function publicClientFor(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 10_000 }) });
}

type LeafLog = { leaf: Hex; root: Hex; payload: Hex; log: Log };

export class RegistryReader implements AnchorReader {
  constructor(
    readonly client: PublicClient,
    readonly chainId: number,
    readonly registryAddress: Hex,
    private readonly rpcUrl: string,
    /** First block worth searching (the registry's deployment block when known). */
    private readonly fromBlock = 0n,
  ) {}

  /** A reader for `registryAddress` on the node at `rpcUrl`; fails when no contract is there. */
  static async connect(options: { rpcUrl: string; registryAddress: string; fromBlock?: bigint }): Promise<RegistryReader> {
    const client = publicClientFor(options.rpcUrl);
    const address = options.registryAddress.toLowerCase() as Hex;
    if (!/^0x[0-9a-f]{40}$/.test(address)) throw new AnchorChainError('misconfigured', `not a contract address: ${options.registryAddress}`);
    const [chainId, code] = await Promise.all([client.getChainId(), client.getCode({ address })]).catch((error: unknown) => {
      throw chainFailure(options.rpcUrl, 'reading the registry', error);
    });
    if (!code || code === '0x') {
      throw new AnchorChainError('misconfigured', `no contract at ${address} on chain ${chainId} (${describeRpc(options.rpcUrl)})`);
    }
    return new RegistryReader(client, chainId, address, options.rpcUrl, options.fromBlock);
  }

  /** Block time and block of the first anchoring of `root`, or null. */
  async getAnchor(root: Hex): Promise<{ anchoredAt: Date; blockNumber: bigint } | null> {
    const [timestamp, blockNumber] = await this.call('reading an anchor', () =>
      this.client.readContract({ address: this.registryAddress, abi: registryAbi, functionName: 'getAnchor', args: [toBytes32(root)] }),
    );
    return timestamp === 0n ? null : { anchoredAt: new Date(Number(timestamp) * 1000), blockNumber };
  }

  async findAnchor(hash: Hex): Promise<FoundAnchor | null> {
    const leaf = toBytes32(hash);
    const logs = await this.leafLogs({ leaf });
    // Earliest first: the first anchoring is the one that counts; a later batch holding the same leaf is ignored.
    for (const found of logs) {
      const anchor = await this.checkedAnchor(found);
      if (anchor) return anchor;
    }
    return null;
  }

  async readAnchorTransaction(txHash: Hex): Promise<AnchorTransaction | null> {
    const receipt = await this.call('reading a transaction', async () => {
      try {
        return await this.client.getTransactionReceipt({ hash: txHash });
      } catch (error) {
        if ((error as { name?: string }).name === 'TransactionReceiptNotFoundError') return null;
        throw error;
      }
    });
    if (!receipt || receipt.status !== 'success') return null;
    const ours = receipt.logs.filter((log) => log.address.toLowerCase() === this.registryAddress);
    const result: AnchorTransaction = {
      txHash: receipt.transactionHash,
      registryAddress: this.registryAddress,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      blockTime: new Date(0),
      anchored: [],
      alreadyAnchored: [],
    };
    for (const log of ours) {
      const event = decodeEventLog({ abi: registryAbi, data: log.data, topics: log.topics, strict: false });
      switch (event.eventName) {
        case 'Anchored':
          result.anchored.push({ root: event.args.root as Hex, leaves: [] });
          break;
        case 'LeafAnchored': {
          const batch = result.anchored.find((b) => b.root === event.args.root);
          batch?.leaves.push({ hash: event.args.leaf as Hex, payload: (event.args.payload ?? '0x') });
          break;
        }
        case 'AlreadyAnchored':
          result.alreadyAnchored.push({
            root: event.args.root as Hex,
            firstAnchoredAt: new Date(Number(event.args.firstAnchoredAt ?? 0n) * 1000),
            firstBlockNumber: event.args.firstBlockNumber ?? 0n,
          });
          break;
        default:
          break;
      }
    }
    if (result.anchored.length === 0 && result.alreadyAnchored.length === 0) return null;
    const block = await this.call('reading a block', () => this.client.getBlock({ blockHash: receipt.blockHash }));
    result.blockTime = new Date(Number(block.timestamp) * 1000);
    return result;
  }

  /** LeafAnchored logs of this registry matching the filter, oldest first. */
  private async leafLogs(filter: { leaf?: Hex; root?: Hex; blockHash?: Hex }): Promise<LeafLog[]> {
    const args = { leaf: filter.leaf, root: filter.root };
    const range = filter.blockHash ? { blockHash: filter.blockHash } : { fromBlock: this.fromBlock, toBlock: 'latest' as const };
    const logs = await this.call('searching the registry logs', () =>
      this.client.getLogs({ address: this.registryAddress, event: leafAnchored, args, ...range }),
    );
    return logs
      .filter((log) => !log.removed && log.transactionHash)
      .map((log) => ({ leaf: log.args.leaf as Hex, root: log.args.root as Hex, payload: (log.args.payload ?? '0x'), log }));
  }

  /** The anchor behind one LeafAnchored log, after rebuilding the root from its batch; null if it does not hold. */
  private async checkedAnchor(found: LeafLog): Promise<FoundAnchor | null> {
    const { log } = found;
    if (!log.blockHash || !log.transactionHash || log.blockNumber === null) return null;
    const siblings = (await this.leafLogs({ root: found.root, blockHash: log.blockHash })).filter(
      (s) => s.log.transactionHash === log.transactionHash,
    );
    const counts = await this.call('searching the registry logs', () =>
      this.client.getLogs({ address: this.registryAddress, event: anchored, args: { root: found.root }, blockHash: log.blockHash! }),
    );
    const announced = counts.find((c) => c.transactionHash === log.transactionHash)?.args.leafCount;
    const leaves = siblings.map((s) => s.leaf);
    if (announced === undefined || leaves.length !== announced || batchRoot(leaves) !== found.root) return null;
    const stored = await this.getAnchor(found.root);
    if (!stored || stored.blockNumber !== log.blockNumber) return null;
    const batch = buildBatch(leaves);
    return {
      hash: found.leaf,
      registryAddress: this.registryAddress,
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      anchoredAt: stored.anchoredAt,
      root: found.root,
      leaves,
      proof: batch.proofs[leaves.indexOf(found.leaf)] ?? [],
      payload: found.payload,
    };
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw chainFailure(this.rpcUrl, what, error);
    }
  }
}
