import { keccak256 } from 'ox/Hash';
import type { Hex } from './chain.js';

/**
 * Batches of seals anchored as one Merkle root: OpenZeppelin's SimpleMerkleTree over the bytes32
 * metadata hashes (leaves used as they are, sorted; node = keccak256 of the sorted pair), so
 * OpenZeppelin's MerkleProof.verify and its JavaScript library accept our proofs. One seal alone is
 * anchored directly: root = its hash, empty proof. The registry contract's header describes how a
 * verifier finds a batch from a leaf.
 *
 * Built here on ox's keccak256 (the library's package brought @metamask/abi-utils and its
 * dependencies into the service, about 2 MiB resident); test/unit/anchoring-merkle.test.ts checks
 * roots and proofs against @openzeppelin/merkle-tree's.
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
  // OpenZeppelin's layout: a complete binary tree in one array, the sorted leaves at its end in reverse
  // order, each node at i the hash of its children at 2i + 1 and 2i + 2; the root at 0.
  const sorted = [...leaves].sort();
  const tree: Hex[] = new Array<Hex>(2 * sorted.length - 1);
  sorted.forEach((leaf, i) => (tree[tree.length - 1 - i] = leaf));
  for (let i = tree.length - 1 - sorted.length; i >= 0; i--) tree[i] = hashPair(tree[2 * i + 1]!, tree[2 * i + 2]!);
  const proofOf = (leaf: Hex): Hex[] => {
    const proof: Hex[] = [];
    // Up from the leaf's node: each level's sibling (the node beside it), to the root.
    for (let index = tree.length - 1 - sorted.indexOf(leaf); index > 0; index = Math.floor((index - 1) / 2)) {
      proof.push(tree[index % 2 === 1 ? index + 1 : index - 1]!);
    }
    return proof;
  };
  return { root: tree[0]!, leaves, proofs: leaves.map(proofOf) };
}

/** A node: keccak256 of its two children, the smaller first (lower-case hex of equal length sorts as bytes). */
function hashPair(a: Hex, b: Hex): Hex {
  return keccak256(a < b ? `${a}${b.slice(2)}` : `${b}${a.slice(2)}`);
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
  return proof.map(toBytes32).reduce(hashPair, l) === r;
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
