import { AnchorChainError, type AnchorReader, type AnchorTransaction, type FoundAnchor, type Hex } from './chain.js';
import { decodeGetAnchor, decodeRegistryEvent, encodeGetAnchor, eventTopics, EvmRpc, registry, RpcFailure, type RpcLog } from './evm.js';
import { batchRoot, buildBatch, toBytes32 } from './merkle.js';

/**
 * The read side of the registry: finds anchors and reads anchoring transactions through the logs and
 * storage of any node, with nothing from our service. The offline verifier uses it alone; the chain
 * adapter (the service's src/domain/anchoring/evm-chain.ts) adds the write side.
 */

/** The RPC URL as it may appear in messages: its origin only (a provider key often sits in the path). */
export function describeRpc(rpcUrl: string): string {
  try {
    return new URL(rpcUrl).origin;
  } catch {
    return 'the chain RPC';
  }
}

/** A node's or transport's failure as an AnchorChainError with a short reason (no request bodies, no URLs). */
export function chainFailure(rpcUrl: string, what: string, error: unknown): AnchorChainError {
  if (error instanceof AnchorChainError) return error;
  // Anything else (an answer that does not decode, say) is the node's answer, not an outage.
  const transport = error instanceof RpcFailure && error.transport;
  const reason = error instanceof RpcFailure && error.details ? error.details : 'unknown error';
  return new AnchorChainError(
    transport ? 'unreachable' : 'rejected',
    `${what} failed at ${describeRpc(rpcUrl)}: ${transport ? 'chain node unreachable' : 'node answered with an error'} (${reason.split('\n')[0]?.slice(0, 200)})`,
  );
}

type LeafLog = { leaf: Hex; root: Hex; payload: Hex; log: RpcLog };

export class RegistryReader implements AnchorReader {
  constructor(
    readonly client: EvmRpc,
    readonly chainId: number,
    readonly registryAddress: Hex,
    private readonly rpcUrl: string,
    /** First block worth searching (the registry's deployment block when known). */
    private readonly fromBlock = 0n,
  ) {}

  /** A reader for `registryAddress` on the node at `rpcUrl`; fails when no contract is there. */
  static async connect(options: { rpcUrl: string; registryAddress: string; fromBlock?: bigint }): Promise<RegistryReader> {
    const client = new EvmRpc(options.rpcUrl);
    const address = options.registryAddress.toLowerCase() as Hex;
    if (!/^0x[0-9a-f]{40}$/.test(address)) throw new AnchorChainError('misconfigured', `not a contract address: ${options.registryAddress}`);
    const [chainId, code] = await Promise.all([client.chainId(), client.code(address)]).catch((error: unknown) => {
      throw chainFailure(options.rpcUrl, 'reading the registry', error);
    });
    if (!code || code === '0x') {
      throw new AnchorChainError('misconfigured', `no contract at ${address} on chain ${chainId} (${describeRpc(options.rpcUrl)})`);
    }
    return new RegistryReader(client, chainId, address, options.rpcUrl, options.fromBlock);
  }

  /** Block time and block of the first anchoring of `root`, or null. */
  async getAnchor(root: Hex): Promise<{ anchoredAt: Date; blockNumber: bigint } | null> {
    const { timestamp, blockNumber } = await this.call('reading an anchor', async () =>
      decodeGetAnchor(await this.client.call(this.registryAddress, encodeGetAnchor(toBytes32(root)))),
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
    const receipt = await this.call('reading a transaction', () => this.client.receipt(txHash));
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
      const event = decodeRegistryEvent(log);
      if (!event) continue;
      switch (event.eventName) {
        case 'Anchored':
          result.anchored.push({ root: event.args.root, leaves: [] });
          break;
        case 'LeafAnchored': {
          const batch = result.anchored.find((b) => b.root === event.args.root);
          batch?.leaves.push({ hash: event.args.leaf, payload: event.args.payload });
          break;
        }
        case 'AlreadyAnchored':
          result.alreadyAnchored.push({
            root: event.args.root,
            firstAnchoredAt: new Date(Number(event.args.firstAnchoredAt) * 1000),
            firstBlockNumber: event.args.firstBlockNumber,
          });
          break;
      }
    }
    if (result.anchored.length === 0 && result.alreadyAnchored.length === 0) return null;
    const block = await this.call('reading a block', async () => {
      const found = await this.client.block({ hash: receipt.blockHash });
      if (!found) throw new RpcFailure(false, `block ${receipt.blockHash} not found`);
      return found;
    });
    result.blockTime = new Date(Number(block.timestamp) * 1000);
    return result;
  }

  /** LeafAnchored logs of this registry matching the filter, oldest first. */
  private async leafLogs(filter: { leaf?: Hex; root?: Hex; blockHash?: Hex }): Promise<LeafLog[]> {
    const topics = eventTopics(registry.leafAnchored, { leaf: filter.leaf, root: filter.root });
    const range = filter.blockHash ? { blockHash: filter.blockHash } : { fromBlock: this.fromBlock };
    const logs = await this.call('searching the registry logs', () => this.client.logs({ address: this.registryAddress, topics, ...range }));
    const found: LeafLog[] = [];
    for (const log of logs) {
      const event = log.removed || !log.transactionHash ? null : decodeRegistryEvent(log);
      if (event?.eventName === 'LeafAnchored') found.push({ leaf: event.args.leaf, root: event.args.root, payload: event.args.payload, log });
    }
    return found;
  }

  /** The anchor behind one LeafAnchored log, after rebuilding the root from its batch; null if it does not hold. */
  private async checkedAnchor(found: LeafLog): Promise<FoundAnchor | null> {
    const { log } = found;
    if (!log.blockHash || !log.transactionHash || log.blockNumber === null) return null;
    const siblings = (await this.leafLogs({ root: found.root, blockHash: log.blockHash })).filter(
      (s) => s.log.transactionHash === log.transactionHash,
    );
    const counts = await this.call('searching the registry logs', () =>
      this.client.logs({ address: this.registryAddress, topics: eventTopics(registry.anchored, { root: found.root }), blockHash: log.blockHash! }),
    );
    const announcing = counts.find((c) => c.transactionHash === log.transactionHash);
    const event = announcing ? decodeRegistryEvent(announcing) : null;
    const announced = event?.eventName === 'Anchored' ? event.args.leafCount : undefined;
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
