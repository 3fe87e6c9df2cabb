import { SimpleMerkleTree } from '@openzeppelin/merkle-tree';
import type { Hex } from './chain.js';

/**
 * Batches of seals anchored as one Merkle root: an OpenZeppelin SimpleMerkleTree over the bytes32
 * metadata hashes (leaves used as they are, sorted; node = keccak256 of the sorted pair). One seal
 * alone is anchored directly: root = its hash, empty proof. The registry contract's header describes
 * how a verifier finds a batch from a leaf.
 */
export type MerkleBatch = {
  root: Hex;
  /** The leaves in the caller's order (the order of the LeafAnchored events). */
  leaves: Hex[];
  /** The inclusion proof of each leaf, in the same order as `leaves`. */
  proofs: Hex[][];
};

const BYTES32 = /^0x[0-9a-f]{64}$/;

/** A bytes32 in lower case; throws on anything else (a sha256:<hex> value must be converted first). */
export function toBytes32(value: string): Hex {
  const lower = value.toLowerCase();
  if (!BYTES32.test(lower)) throw new RangeError(`not a 32-byte hex value: ${value.slice(0, 80)}`);
  return lower as Hex;
}

/** The Merkle batch of distinct hashes; a single hash is its own root. */
export function buildBatch(hashes: readonly string[]): MerkleBatch {
  if (hashes.length === 0) throw new RangeError('a batch needs at least one hash');
  const leaves = hashes.map(toBytes32);
  if (new Set(leaves).size !== leaves.length) throw new RangeError('a batch cannot anchor the same hash twice');
  const [only] = leaves;
  if (leaves.length === 1 && only) return { root: only, leaves, proofs: [[]] };
  const tree = SimpleMerkleTree.of(leaves);
  return { root: tree.root as Hex, leaves, proofs: leaves.map((leaf) => tree.getProof(leaf) as Hex[]) };
}

/** The root of a batch's leaves (whatever their order). */
export function batchRoot(leaves: readonly string[]): Hex {
  return buildBatch(leaves).root;
}

/** Whether `proof` ties `leaf` to `root` (an empty proof: leaf === root). */
export function verifyInclusion(root: string, leaf: string, proof: readonly string[]): boolean {
  const r = toBytes32(root);
  const l = toBytes32(leaf);
  if (proof.length === 0) return r === l;
  return SimpleMerkleTree.verify(r, l, proof.map(toBytes32));
}

/** 'sha256:<hex>' (the metadata_hash form) or bare hex -> bytes32. */
export function hashToBytes32(hash: string): Hex {
  return toBytes32(`0x${hash.replace(/^sha256:/i, '').replace(/^0x/i, '')}`);
}

/** bytes32 -> 'sha256:<hex>'. */
export function bytes32ToSha256(value: Hex): string {
  return `sha256:${toBytes32(value).slice(2)}`;
}

/**
 * Whether a transaction's first anchorings carry `hash`: as a leaf of one of its batches (directly
 * anchored seals are one-leaf batches), or, given the record's stored proof, through a root the proof
 * ties it to. Repeats (AlreadyAnchored) do not count: the first anchoring is the one that proves time.
 */
export function transactionAnchors(
  anchored: readonly { root: string; leaves: readonly { hash: string }[] }[],
  hash: string,
  proof?: readonly string[],
): boolean {
  const leaf = toBytes32(hash);
  return anchored.some(
    (batch) => batch.leaves.some((l) => l.hash.toLowerCase() === leaf) || (proof !== undefined && verifyInclusion(batch.root, leaf, proof)),
  );
}
