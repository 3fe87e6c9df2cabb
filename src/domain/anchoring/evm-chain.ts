import fs from 'node:fs';
import path from 'node:path';
import {
  AnchorChainError,
  type AnchorChain,
  type AnchorConfirmation,
  type AnchorLeaf,
  type AnchorTransaction,
  type BroadcastOutcome,
  type FoundAnchor,
  type Hex,
  type PreparedAnchoring,
} from '../../../packages/verifier/src/anchoring/chain.js';
import { encodeAnchor, encodeAnchorBatch, EvmRpc, RpcFailure } from '../../../packages/verifier/src/anchoring/evm.js';
import { keccak256, privateKeyAccount, type EvmAccount } from './evm-account.js';
import { buildBatch } from '../../../packages/verifier/src/anchoring/merkle.js';
import { registryBytecode } from '../../../packages/verifier/src/anchoring/registry-artifact.js';
import { chainFailure, describeRpc, RegistryReader } from '../../../packages/verifier/src/anchoring/registry-reader.js';

/** The chain id of anvil and other development chains. */
const DEVELOPMENT_CHAIN_ID = 31337;

/**
 * The first development account of anvil/hardhat (from the public "test test ... junk" mnemonic):
 * the default signer on the embedded development chain only. Never use it on a real network.
 */
export const DEVELOPMENT_SIGNER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export type EvmAnchorChainOptions = {
  rpcUrl: string;
  /** Hex private key of the anchoring account. Never logged, never in an error message. */
  signerKey: string;
  /** The registry's address; unset: deployed (when deployIfMissing) and remembered in addressFile. */
  registryAddress?: string;
  /** Blocks (including the transaction's) before an anchoring counts as confirmed. Default 1. */
  confirmations?: number;
  /** Deploy the registry when no address is given or remembered (development chains). */
  deployIfMissing?: boolean;
  /** JSON file remembering deployed registries, keyed by chain id and genesis block hash. */
  addressFile?: string;
  /** Name shown as the record's network; default from the chain id. */
  networkName?: string;
  /** Block the configured registry was deployed in: log searches start there (nodes limit log ranges). */
  registryDeployBlock?: bigint;
};

type RememberedRegistries = Record<string, { address: Hex; blockNumber: string }>;

/** Whether a node's error text says it already holds this very transaction. */
const ALREADY_KNOWN = /already known|already imported|known transaction|alreadyknown|already exists/i;
const NONCE_TOO_LOW = /nonce too low|noncetoolow|nonce has already been used|invalid nonce/i;

/**
 * The anchoring port on an EVM chain (JSON-RPC and signing on ox: evm.ts, evm-account.ts), against
 * contracts/RecordRegistry.sol. The signer key lives only inside the account; errors go through
 * chainFailure, which keeps short reasons and the RPC origin only.
 */
export class EvmAnchorChain implements AnchorChain {
  private constructor(
    private readonly reader: RegistryReader,
    private readonly account: EvmAccount,
    private readonly rpcUrl: string,
    private readonly requiredConfirmations: number,
    private readonly name: string,
  ) {}

  get chainId(): number {
    return this.reader.chainId;
  }

  get registryAddress(): Hex {
    return this.reader.registryAddress;
  }

  /** The signer's address (public). */
  get signerAddress(): Hex {
    return this.account.address;
  }

  private get client(): EvmRpc {
    return this.reader.client;
  }

  static async connect(options: EvmAnchorChainOptions): Promise<EvmAnchorChain> {
    let account: EvmAccount;
    try {
      const key = options.signerKey.startsWith('0x') ? options.signerKey : `0x${options.signerKey}`;
      account = privateKeyAccount(key as Hex);
    } catch {
      throw new AnchorChainError('misconfigured', 'the chain signer key is not a 32-byte hex private key');
    }
    const confirmations = options.confirmations ?? 1;
    if (!Number.isInteger(confirmations) || confirmations < 1) throw new AnchorChainError('misconfigured', 'confirmations must be an integer >= 1');
    const client = new EvmRpc(options.rpcUrl);
    const [chainId, genesis] = await Promise.all([client.chainId(), client.block({ number: 0n })]).catch((error: unknown) => {
      throw chainFailure(options.rpcUrl, 'connecting to the chain', error);
    });
    if (!genesis) throw new AnchorChainError('unreachable', `connecting to the chain failed at ${describeRpc(options.rpcUrl)}: the node has no genesis block`);
    if (account.address === privateKeyAccount(DEVELOPMENT_SIGNER_KEY).address && chainId !== DEVELOPMENT_CHAIN_ID) {
      // Everyone knows this key: on a real network its funds are swept at once and anyone could anchor as us.
      throw new AnchorChainError('misconfigured', `the development signer key is only for the development chain (${DEVELOPMENT_CHAIN_ID}), not chain ${chainId}: set CHAIN_SIGNER_KEY`);
    }
    let registry: { address: Hex; blockNumber: bigint } | null;
    if (options.registryAddress) {
      registry = { address: options.registryAddress.toLowerCase() as Hex, blockNumber: options.registryDeployBlock ?? 0n };
    } else {
      const key = `${chainId}:${genesis.hash}`;
      registry = options.addressFile ? await remembered(client, options.rpcUrl, options.addressFile, key) : null;
      if (!registry) {
        if (!options.deployIfMissing) {
          throw new AnchorChainError('misconfigured', `no registry address configured for chain ${chainId} (set CHAIN_REGISTRY_ADDRESS)`);
        }
        registry = await withFileLock(options.addressFile, async () => {
          const again = options.addressFile ? await remembered(client, options.rpcUrl, options.addressFile, key) : null;
          if (again) return again;
          const deployed = await deployRegistry(client, account, chainId, options.rpcUrl);
          if (options.addressFile) remember(options.addressFile, key, deployed);
          return deployed;
        });
      }
    }
    const reader = await RegistryReader.connect({ rpcUrl: options.rpcUrl, registryAddress: registry.address, fromBlock: registry.blockNumber });
    const name = options.networkName ?? (chainId === DEVELOPMENT_CHAIN_ID ? 'local-development' : `chain-${chainId}`);
    return new EvmAnchorChain(reader, account, options.rpcUrl, confirmations, name);
  }

  networkName(): string {
    return this.name;
  }

  async prepareBatch(leaves: readonly AnchorLeaf[], options: { nonce?: number } = {}): Promise<PreparedAnchoring> {
    const batch = buildBatch(leaves.map((l) => l.hash));
    const payloads = leaves.map((l) => l.payload ?? '0x');
    const [root] = batch.leaves;
    const data =
      batch.leaves.length === 1 && root
        ? encodeAnchor(root, payloads[0] ?? '0x')
        : encodeAnchorBatch(batch.root, batch.leaves, payloads.every((p) => p === '0x') ? [] : payloads);
    const from = this.account.address;
    const to = this.registryAddress;
    const { rawTx, nonce } = await this.call('preparing an anchoring', () => signedTransaction(this.client, this.account, this.chainId, { to, data, nonce: options.nonce }));
    return { ...batch, rawTx, txHash: keccak256(rawTx), nonce, from, chainId: this.chainId, registryAddress: to };
  }

  async broadcast(rawTx: Hex): Promise<BroadcastOutcome> {
    const txHash = keccak256(rawTx);
    try {
      await this.client.sendRawTransaction(rawTx);
      return { txHash, outcome: 'sent' };
    } catch (error) {
      // The node's own message (a transport failure says nothing of the transaction).
      const text = error instanceof RpcFailure ? error.details : '';
      if (ALREADY_KNOWN.test(text)) return { txHash, outcome: 'already_known' };
      if (NONCE_TOO_LOW.test(text)) {
        // The nonce is used: by this very transaction (mined; its receipt may trail by a moment) or by another.
        for (let attempt = 0; attempt < 5; attempt++) {
          const state = await this.confirmation(txHash);
          if (state.state === 'mined' || state.state === 'failed') return { txHash, outcome: 'mined' };
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        throw new AnchorChainError('replaced', `transaction ${txHash} can never be mined: its nonce was used by another transaction`);
      }
      throw chainFailure(this.rpcUrl, 'broadcasting an anchoring', error);
    }
  }

  async confirmation(txHash: Hex): Promise<AnchorConfirmation> {
    return this.call('reading a confirmation', async () => {
      const receipt = await this.client.receipt(txHash);
      if (!receipt) return { state: (await this.client.knowsTransaction(txHash)) ? 'pending' : 'unknown', txHash } as const;
      // Re-read the block by number: after a reorganisation it has another hash (or is gone).
      const [block, head] = await Promise.all([
        this.client.block({ number: receipt.blockNumber }).catch(() => null),
        this.client.blockNumber(),
      ]);
      if (!block || block.hash !== receipt.blockHash) return { state: 'pending', txHash } as const;
      const confirmations = Number(head - receipt.blockNumber + 1n);
      const failed = receipt.status !== 'success';
      return {
        state: failed ? 'failed' : 'mined',
        txHash,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        confirmations,
        confirmed: !failed && confirmations >= this.requiredConfirmations,
        blockTime: new Date(Number(block.timestamp) * 1000),
      } as const;
    });
  }

  findAnchor(hash: Hex): Promise<FoundAnchor | null> {
    return this.reader.findAnchor(hash);
  }

  readAnchorTransaction(txHash: Hex): Promise<AnchorTransaction | null> {
    return this.reader.readAnchorTransaction(txHash);
  }

  getAnchor(root: Hex): Promise<{ anchoredAt: Date; blockNumber: bigint } | null> {
    return this.reader.getAnchor(root);
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw chainFailure(this.rpcUrl, what, error);
    }
  }
}

/**
 * A signed EIP-1559 transaction from the account: its pending nonce (unless given), the gas the node
 * estimates with a quarter's headroom, and twice the estimated fee cap. Headroom: a batch's gas hardly
 * varies, but a rebroadcast after an outage must still fit.
 */
async function signedTransaction(client: EvmRpc, account: EvmAccount, chainId: number, transaction: { to?: Hex; data: Hex; nonce?: number | undefined }): Promise<{ rawTx: Hex; nonce: number }> {
  const { to, data } = transaction;
  const [nonce, gas, fees] = await Promise.all([
    transaction.nonce ?? client.pendingNonce(account.address),
    client.estimateGas({ from: account.address, ...(to ? { to } : {}), data }),
    client.feesPerGas(),
  ]);
  const rawTx = account.signTransaction({
    chainId,
    ...(to ? { to } : {}),
    data,
    nonce,
    gas: (gas * 5n) / 4n,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return { rawTx, nonce };
}

async function deployRegistry(client: EvmRpc, account: EvmAccount, chainId: number, rpcUrl: string) {
  try {
    const { rawTx } = await signedTransaction(client, account, chainId, { data: registryBytecode });
    const hash = await client.sendRawTransaction(rawTx);
    const receipt = await client.waitForReceipt(hash, 60_000);
    if (receipt.status !== 'success' || !receipt.contractAddress) {
      throw new AnchorChainError('rejected', `deploying the registry failed on chain ${chainId} (${describeRpc(rpcUrl)})`);
    }
    return { address: receipt.contractAddress.toLowerCase() as Hex, blockNumber: receipt.blockNumber };
  } catch (error) {
    throw chainFailure(rpcUrl, 'deploying the registry', error);
  }
}

function readRemembered(file: string): RememberedRegistries {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as RememberedRegistries;
  } catch {
    return {};
  }
}

/** The registry remembered for this chain, if its code is still there. */
async function remembered(client: EvmRpc, rpcUrl: string, file: string, key: string): Promise<{ address: Hex; blockNumber: bigint } | null> {
  const entry = readRemembered(file)[key];
  if (!entry) return null;
  // A node that cannot answer now is an outage, not a missing registry: never redeploy because of it.
  const code = await client.code(entry.address).catch((error: unknown) => {
    throw chainFailure(rpcUrl, 'reading the registry', error);
  });
  return code && code !== '0x' ? { address: entry.address, blockNumber: BigInt(entry.blockNumber) } : null;
}

function remember(file: string, key: string, registry: { address: Hex; blockNumber: bigint }): void {
  const all = readRemembered(file);
  all[key] = { address: registry.address, blockNumber: registry.blockNumber.toString() };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(all, null, 2)}\n`);
  fs.renameSync(`${file}.tmp`, file);
}

/** Serializes deployments between processes sharing an address file (a mkdir lock next to it). */
async function withFileLock<T>(file: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!file) return fn();
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new AnchorChainError('misconfigured', `timed out waiting for ${lock}`);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}
