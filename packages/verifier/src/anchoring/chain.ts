/**
 * The anchoring port: what the service needs from a chain to timestamp sealed records, in product
 * words. The EVM adapter (the service's src/domain/anchoring/evm-chain.ts, on ox) implements it
 * against the RecordRegistry contract; the verifier uses only the read side (AnchorReader).
 *
 * Exactly one anchoring transaction per seal, whatever fails: `prepareBatch` returns the SIGNED
 * transaction with an explicit nonce; the caller persists it, then `broadcast`s it, and after a crash
 * or an outage broadcasts the very same bytes again (same hash, same nonce: the chain can include it
 * at most once). `confirmation` re-reads the receipt each time, so a reorganised block is noticed.
 */
export type Hex = `0x${string}`;

/** One seal waiting to be anchored: its metadata hash as bytes32, and optional public payload bytes. */
export type AnchorLeaf = {
  hash: Hex;
  /** Published in the event data: the sealed text (on_chain_full_text) and/or verified parties. */
  payload?: Hex;
};

/** A signed anchoring transaction, ready to persist and broadcast. */
export type PreparedAnchoring = {
  /** Merkle root anchored (the hash itself for one leaf). */
  root: Hex;
  /** The leaf hashes, in the order given. */
  leaves: Hex[];
  /** Inclusion proof of each leaf, same order as `leaves` (empty for a single leaf). */
  proofs: Hex[][];
  /** The signed transaction; broadcasting it again is always safe. */
  rawTx: Hex;
  txHash: Hex;
  nonce: number;
  /** The signer's address. */
  from: Hex;
  chainId: number;
  registryAddress: Hex;
};

export type BroadcastOutcome = {
  txHash: Hex;
  /** sent: accepted now; already_known: the node had it; mined: it was already in a block. */
  outcome: 'sent' | 'already_known' | 'mined';
};

export type AnchorConfirmation =
  | { state: 'unknown'; txHash: Hex }
  | { state: 'pending'; txHash: Hex }
  | {
      state: 'mined' | 'failed';
      txHash: Hex;
      blockNumber: bigint;
      blockHash: Hex;
      /** Blocks on top of and including the transaction's block. */
      confirmations: number;
      /** confirmations >= the configured number (and the transaction succeeded). */
      confirmed: boolean;
      blockTime: Date;
    };

/** Where and when a hash was first anchored, found on the chain alone. */
export type FoundAnchor = {
  hash: Hex;
  registryAddress: Hex;
  txHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  /** Block time of the first anchoring of the root (from the registry's storage). */
  anchoredAt: Date;
  root: Hex;
  /** Every leaf of the batch (the root was rebuilt from them and matched). */
  leaves: Hex[];
  /** The inclusion proof of `hash` under `root` (empty when anchored directly). */
  proof: Hex[];
  /** The payload published with this leaf ('0x' when none). */
  payload: Hex;
};

/** The registry events of one transaction. */
export type AnchorTransaction = {
  txHash: Hex;
  registryAddress: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  blockTime: Date;
  /** First anchorings of roots in this transaction, with their leaves and payloads. */
  anchored: { root: Hex; leaves: { hash: Hex; payload: Hex }[] }[];
  /** Roots this transaction anchored again (no state change), with their first anchoring. */
  alreadyAnchored: { root: Hex; firstAnchoredAt: Date; firstBlockNumber: bigint }[];
};

export interface AnchorReader {
  readonly chainId: number;
  readonly registryAddress: Hex;
  /** The first anchoring of `hash`, directly or inside a batch, or null. */
  findAnchor(hash: Hex): Promise<FoundAnchor | null>;
  /** The registry events of a transaction; null when it is unknown or not a registry anchoring. */
  readAnchorTransaction(txHash: Hex): Promise<AnchorTransaction | null>;
}

export interface AnchorChain extends AnchorReader {
  /** The network's name for records and explorers (e.g. "sepolia", "local-development"). */
  networkName(): string;
  /** Signs (does not send) one transaction anchoring all these seals. */
  prepareBatch(leaves: readonly AnchorLeaf[], options?: { nonce?: number }): Promise<PreparedAnchoring>;
  /** Sends a prepared transaction; idempotent. Throws AnchorChainError. */
  broadcast(rawTx: Hex): Promise<BroadcastOutcome>;
  /** The transaction's state now, re-read from the chain. */
  confirmation(txHash: Hex): Promise<AnchorConfirmation>;
}

export type AnchorChainErrorCode =
  /** The node cannot be reached or answered with a transport error: retry later. */
  | 'unreachable'
  /** The node refused the transaction (e.g. fees, funds). */
  | 'rejected'
  /** The nonce was used by another transaction: this one can never land; check the registry, prepare anew. */
  | 'replaced'
  /** Bad configuration: no contract at the registry address, a wrong chain. */
  | 'misconfigured';

/** A chain failure. Its message never carries the signer key or the RPC URL's path or query. */
export class AnchorChainError extends Error {
  constructor(
    readonly code: AnchorChainErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AnchorChainError';
  }
}
