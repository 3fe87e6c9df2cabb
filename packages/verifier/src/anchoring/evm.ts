/**
 * What anchoring needs of an EVM node, on ox's modules (JSON-RPC over HTTP, ABI coding; the service's
 * EIP-1559 signing is in src/domain/anchoring/evm-account.ts, outside the verifier): each loads on its
 * own, so a process holds only what it uses (viem's entry point loads some 375 modules and 22 MiB of
 * resident memory). Values come back as viem answers them (bigints, numbers, lower-case hex), and
 * failures as RpcFailure (see chainFailure).
 */
import * as AbiEvent from 'ox/AbiEvent';
import * as AbiFunction from 'ox/AbiFunction';
import * as RpcTransport from 'ox/RpcTransport';
import type { Hex } from './chain.js';
import { registryAbi } from './registry-artifact.js';

/**
 * A node's failure: `transport` when the node could not be reached or answered no JSON-RPC (refused,
 * timed out, an HTTP error status), else the node's own error. `details` is the node's message or a
 * short reason; never the RPC URL (a provider key often sits in it) nor the request.
 */
export class RpcFailure extends Error {
  constructor(
    readonly transport: boolean,
    readonly details: string,
  ) {
    super(details);
    this.name = 'RpcFailure';
  }
}

export type RpcLog = {
  address: Hex;
  data: Hex;
  topics: Hex[];
  blockNumber: bigint | null;
  blockHash: Hex | null;
  transactionHash: Hex | null;
  removed: boolean;
};

export type RpcReceipt = {
  status: 'success' | 'reverted';
  transactionHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  contractAddress: Hex | null;
  logs: RpcLog[];
};

export type RpcBlock = { hash: Hex; number: bigint; timestamp: bigint; baseFeePerGas: bigint | null };

type RawLog = { address: Hex; data: Hex; topics: Hex[]; blockNumber: Hex | null; blockHash: Hex | null; transactionHash: Hex | null; removed?: boolean };
type RawBlock = { hash: Hex; number: Hex; timestamp: Hex; baseFeePerGas?: Hex | null };
type RawReceipt = { status: Hex; transactionHash: Hex; blockNumber: Hex; blockHash: Hex; contractAddress: Hex | null; logs: RawLog[] };

const quantity = (value: bigint | number): Hex => `0x${value.toString(16)}`;

function toLog(raw: RawLog): RpcLog {
  return {
    address: raw.address.toLowerCase() as Hex,
    data: raw.data,
    topics: raw.topics,
    blockNumber: raw.blockNumber === null ? null : BigInt(raw.blockNumber),
    blockHash: raw.blockHash,
    transactionHash: raw.transactionHash,
    removed: raw.removed === true,
  };
}

function toBlock(raw: RawBlock): RpcBlock {
  return { hash: raw.hash, number: BigInt(raw.number), timestamp: BigInt(raw.timestamp), baseFeePerGas: raw.baseFeePerGas ? BigInt(raw.baseFeePerGas) : null };
}

/** The JSON-RPC methods anchoring calls, on one node. */
export class EvmRpc {
  private readonly transport: RpcTransport.Http;

  constructor(rpcUrl: string, timeoutMs = 10_000) {
    this.transport = RpcTransport.fromHttp(rpcUrl, { timeout: timeoutMs });
  }

  async request<T>(method: string, params: unknown[] = []): Promise<T> {
    try {
      const answer: unknown = await this.transport.request({ method, params });
      return answer as T;
    } catch (error) {
      throw asRpcFailure(error);
    }
  }

  async chainId(): Promise<number> {
    return Number(await this.request<Hex>('eth_chainId'));
  }

  async blockNumber(): Promise<bigint> {
    return BigInt(await this.request<Hex>('eth_blockNumber'));
  }

  async block(at: { number: bigint | 'latest' } | { hash: Hex }): Promise<RpcBlock | null> {
    const raw =
      'hash' in at
        ? await this.request<RawBlock | null>('eth_getBlockByHash', [at.hash, false])
        : await this.request<RawBlock | null>('eth_getBlockByNumber', [at.number === 'latest' ? 'latest' : quantity(at.number), false]);
    return raw ? toBlock(raw) : null;
  }

  async code(address: Hex): Promise<Hex> {
    return this.request<Hex>('eth_getCode', [address, 'latest']);
  }

  async pendingNonce(address: Hex): Promise<number> {
    return Number(await this.request<Hex>('eth_getTransactionCount', [address, 'pending']));
  }

  async estimateGas(transaction: { from: Hex; to?: Hex; data: Hex }): Promise<bigint> {
    return BigInt(await this.request<Hex>('eth_estimateGas', [transaction]));
  }

  /**
   * EIP-1559 fees as viem estimates them: the latest block's base fee with 20% headroom, plus the
   * node's suggested priority fee (or, from a node without that method, the gas price above the base fee).
   */
  async feesPerGas(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const latest = await this.block({ number: 'latest' });
    const baseFee = latest?.baseFeePerGas;
    if (baseFee === null || baseFee === undefined) throw new RpcFailure(false, 'the chain does not support EIP-1559 fees');
    const priority = await this.request<Hex>('eth_maxPriorityFeePerGas').then(
      (fee) => BigInt(fee),
      async (error: unknown) => {
        if (error instanceof RpcFailure && error.transport) throw error;
        const price = BigInt(await this.request<Hex>('eth_gasPrice'));
        return price > baseFee ? price - baseFee : 0n;
      },
    );
    return { maxFeePerGas: (baseFee * 12n) / 10n + priority, maxPriorityFeePerGas: priority };
  }

  async sendRawTransaction(rawTx: Hex): Promise<Hex> {
    return this.request<Hex>('eth_sendRawTransaction', [rawTx]);
  }

  /** The receipt, or null while the node knows of none. */
  async receipt(txHash: Hex): Promise<RpcReceipt | null> {
    const raw = await this.request<RawReceipt | null>('eth_getTransactionReceipt', [txHash]);
    if (!raw) return null;
    return {
      status: BigInt(raw.status) === 1n ? 'success' : 'reverted',
      transactionHash: raw.transactionHash,
      blockNumber: BigInt(raw.blockNumber),
      blockHash: raw.blockHash,
      contractAddress: raw.contractAddress ? (raw.contractAddress.toLowerCase() as Hex) : null,
      logs: raw.logs.map(toLog),
    };
  }

  /** Whether the node knows the transaction (pending or mined). */
  async knowsTransaction(txHash: Hex): Promise<boolean> {
    return (await this.request<unknown>('eth_getTransactionByHash', [txHash])) !== null;
  }

  /** Polls for the receipt until `timeoutMs`. */
  async waitForReceipt(txHash: Hex, timeoutMs: number): Promise<RpcReceipt> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const receipt = await this.receipt(txHash);
      if (receipt) return receipt;
      if (Date.now() > deadline) throw new RpcFailure(true, `no receipt for ${txHash} within ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async call(to: Hex, data: Hex): Promise<Hex> {
    return this.request<Hex>('eth_call', [{ to, data }, 'latest']);
  }

  async logs(filter: { address: Hex; topics: (Hex | null)[]; fromBlock?: bigint; blockHash?: Hex }): Promise<RpcLog[]> {
    const range = filter.blockHash ? { blockHash: filter.blockHash } : { fromBlock: quantity(filter.fromBlock ?? 0n), toBlock: 'latest' };
    const raw = await this.request<RawLog[]>('eth_getLogs', [{ address: filter.address, topics: filter.topics, ...range }]);
    return raw.map(toLog);
  }
}

function asRpcFailure(error: unknown): RpcFailure {
  if (error instanceof RpcFailure) return error;
  const e = error as { name?: string; code?: unknown; message?: unknown; details?: unknown; cause?: { code?: unknown } };
  // A JSON-RPC error object from the node carries a numeric code.
  if (typeof e.code === 'number') return new RpcFailure(false, typeof e.message === 'string' ? e.message.split('\n')[0]! : `error ${e.code}`);
  if (e.name === 'Promise.TimeoutError') return new RpcFailure(true, 'the request timed out');
  if (e.name === 'RpcTransport.HttpError') return new RpcFailure(true, `HTTP error${typeof e.details === 'string' ? `: ${e.details.slice(0, 120)}` : ''}`);
  if (e.name === 'RpcTransport.MalformedResponseError') return new RpcFailure(true, 'the answer was not JSON-RPC');
  // fetch itself failed: refused, reset, unresolvable.
  const code = typeof e.cause?.code === 'string' ? ` (${e.cause.code})` : '';
  return new RpcFailure(true, `${typeof e.message === 'string' ? e.message : 'request failed'}${code}`);
}

/** The registry's calls and events, coded once. */
export const registry = {
  anchor: AbiFunction.fromAbi(registryAbi, 'anchor'),
  anchorBatch: AbiFunction.fromAbi(registryAbi, 'anchorBatch'),
  getAnchor: AbiFunction.fromAbi(registryAbi, 'getAnchor'),
  leafAnchored: AbiEvent.fromAbi(registryAbi, 'LeafAnchored'),
  anchored: AbiEvent.fromAbi(registryAbi, 'Anchored'),
  alreadyAnchored: AbiEvent.fromAbi(registryAbi, 'AlreadyAnchored'),
};

export function encodeAnchor(hash: Hex, payload: Hex): Hex {
  return AbiFunction.encodeData(registry.anchor, [hash, payload]);
}

export function encodeAnchorBatch(root: Hex, leaves: readonly Hex[], payloads: readonly Hex[]): Hex {
  return AbiFunction.encodeData(registry.anchorBatch, [root, leaves, payloads]);
}

export function encodeGetAnchor(root: Hex): Hex {
  return AbiFunction.encodeData(registry.getAnchor, [root]);
}

export function decodeGetAnchor(data: Hex): { timestamp: bigint; blockNumber: bigint } {
  const [timestamp, blockNumber]: readonly [bigint, bigint] = AbiFunction.decodeResult(registry.getAnchor, data);
  return { timestamp, blockNumber };
}

/** The topics that select an event, with some indexed arguments fixed. */
export function eventTopics(event: AbiEvent.AbiEvent, args: Record<string, Hex | undefined>): (Hex | null)[] {
  const fixed = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
  return AbiEvent.encode(event, fixed as never).topics as (Hex | null)[];
}

export type RegistryEvent =
  | { eventName: 'Anchored'; args: { root: Hex; leafCount: number } }
  | { eventName: 'LeafAnchored'; args: { leaf: Hex; root: Hex; payload: Hex } }
  | { eventName: 'AlreadyAnchored'; args: { root: Hex; firstAnchoredAt: bigint; firstBlockNumber: bigint } };

/** One of the registry's events, or null for any other log (or one that does not decode). */
export function decodeRegistryEvent(log: Pick<RpcLog, 'data' | 'topics'>): RegistryEvent | null {
  for (const [eventName, event] of [
    ['Anchored', registry.anchored],
    ['LeafAnchored', registry.leafAnchored],
    ['AlreadyAnchored', registry.alreadyAnchored],
  ] as const) {
    if (log.topics[0] !== AbiEvent.getSelector(event)) continue;
    try {
      const args = AbiEvent.decode(event, { data: log.data, topics: log.topics }) as Record<string, unknown>;
      if (eventName === 'Anchored') return { eventName, args: { root: args.root as Hex, leafCount: Number(args.leafCount) } };
      if (eventName === 'LeafAnchored') return { eventName, args: { leaf: args.leaf as Hex, root: args.root as Hex, payload: (args.payload as Hex | undefined) ?? '0x' } };
      return { eventName, args: { root: args.root as Hex, firstAnchoredAt: BigInt(args.firstAnchoredAt as bigint), firstBlockNumber: BigInt(args.firstBlockNumber as bigint) } };
    } catch {
      return null;
    }
  }
  return null;
}
