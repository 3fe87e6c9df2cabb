import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { SimpleMerkleTree } from '@openzeppelin/merkle-tree';
import { buildBatch, bytes32ToSha256, hashToBytes32, verifyInclusion } from '../../packages/verifier/src/anchoring/merkle.js';

const leaf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as const;

describe('Anchoring batches (Merkle)', () => {
  it('anchors one seal directly: the root is the hash, the proof empty', () => {
    expect(buildBatch([leaf(7)])).toEqual({ root: leaf(7), leaves: [leaf(7)], proofs: [[]] });
    expect(verifyInclusion(leaf(7), leaf(7), [])).toBe(true);
    expect(verifyInclusion(leaf(7), leaf(8), [])).toBe(false);
  });

  it('gives every leaf of a batch a proof to the same root, whatever the order', () => {
    const batch = buildBatch([1, 2, 3, 4, 5].map(leaf));
    expect(buildBatch([5, 3, 1, 2, 4].map(leaf)).root).toBe(batch.root);
    batch.leaves.forEach((l, i) => expect(verifyInclusion(batch.root, l, batch.proofs[i]!)).toBe(true));
    expect(verifyInclusion(batch.root, leaf(6), batch.proofs[0]!)).toBe(false);
  });

  it('builds the roots and proofs of OpenZeppelin\'s SimpleMerkleTree, for batches of every size up to 40', () => {
    const random = (i: number, n: number) => `0x${createHash('sha256').update(`${n}:${i}`).digest('hex')}` as const;
    for (let n = 2; n <= 40; n++) {
      const hashes = Array.from({ length: n }, (_, i) => random(i, n));
      const ours = buildBatch(hashes);
      const theirs = SimpleMerkleTree.of(hashes);
      expect(ours.root).toBe(theirs.root);
      hashes.forEach((hash, i) => {
        expect(ours.proofs[i]).toEqual(theirs.getProof(hash));
        expect(SimpleMerkleTree.verify(ours.root, hash, ours.proofs[i]!)).toBe(true);
        expect(verifyInclusion(theirs.root, hash, theirs.getProof(hash))).toBe(true);
      });
      expect(verifyInclusion(ours.root, random(n, n), ours.proofs[0]!)).toBe(false);
    }
  });

  it('refuses an empty batch, a repeated hash and values that are not 32 bytes', () => {
    expect(() => buildBatch([])).toThrow(RangeError);
    expect(() => buildBatch([leaf(1), leaf(1)])).toThrow(/twice/);
    expect(() => buildBatch(['0x1234'])).toThrow(/32-byte/);
  });

  it('converts metadata_hash values to bytes32 and back', () => {
    const hex = 'ab'.repeat(32);
    expect(hashToBytes32(`sha256:${hex}`)).toBe(`0x${hex}`);
    expect(hashToBytes32(hex.toUpperCase())).toBe(`0x${hex}`);
    expect(bytes32ToSha256(`0x${hex}`)).toBe(`sha256:${hex}`);
  });
});

describe('RecordRegistry artifact', () => {
  it('matches a fresh compile of contracts/RecordRegistry.sol', () => {
    const result = spawnSync(process.execPath, ['scripts/compile-registry.mjs', '--check'], { encoding: 'utf8' });
    expect(result.stderr).toContain('up to date');
    expect(result.status).toBe(0);
  });
});
