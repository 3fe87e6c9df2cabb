// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/**
 * @title RecordRegistry
 * @notice Timestamps the hashes of sealed records (their `metadata_hash`, SHA-256 of the RFC 8785
 *         canonical sealed metadata) so that anyone holding a sealed PDF or a notarization's sealed
 *         metadata can check, with nothing but a chain node, that it existed at a given block time.
 *
 * Design
 * ------
 * - What is stored is a ROOT: the first block time and block number at which it was anchored
 *   (`getAnchor(root)`). A root is never overwritten: anchoring it again changes no state, returns
 *   false and emits `AlreadyAnchored` instead of `Anchored`, so a repeat is harmless and detectable.
 *
 * - One seal alone is anchored directly: root = its metadata_hash, one leaf, so `getAnchor(hash)`
 *   answers for it. Several seals waiting at once are anchored in ONE transaction as the root of an
 *   OpenZeppelin `SimpleMerkleTree` over their bytes32 hashes (sorted leaves, commutative keccak256 of
 *   node pairs, the leaves used as they are). The contract does not recompute the tree: it only
 *   checks the cheap invariant that a one-leaf batch has root == leaf.
 *
 * - Finding a batch from a leaf, offline: for every leaf the first anchoring emits
 *   `LeafAnchored(leaf, root, payload)` with BOTH leaf and root as indexed topics. A verifier that
 *   holds only a metadata_hash asks any node for `eth_getLogs` with topic1 = leaf at this address,
 *   gets the transaction and the root, reads the sibling `LeafAnchored` events of that root in the
 *   same transaction (their count is in `Anchored.leafCount`), rebuilds the Merkle root from those
 *   leaves and checks it equals the root, and reads `getAnchor(root)` for the time. Nothing from the
 *   anchoring service is needed; the service also keeps each record's inclusion proof, which checks
 *   against the same root.
 *
 * - The optional per-leaf `payload` is published in the event data only (never in storage): the
 *   reconstructed sealed text when a record asks for `on_chain_full_text`, and/or the verified party
 *   details with `on_chain_include_verified_parties`. It is empty for hash-only records.
 *
 * - Only the deploying owner may anchor. Otherwise anyone could pre-anchor junk or someone else's
 *   hash under our registry. That would not break verification (what counts is the FIRST anchoring of
 *   a hash, which proves the hash existed at that time whoever sent it) but it would make the
 *   registry's history noisy and its events untrustworthy as "sealed by this service". Rotating the
 *   signer means deploying a new registry; anchors in the old one stay verifiable at its address.
 */
contract RecordRegistry {
    struct Anchor {
        uint64 timestamp;   // block time of the first anchoring (seconds since the epoch)
        uint64 blockNumber; // block of the first anchoring
    }

    /// The account allowed to anchor (the service's chain signer).
    address public immutable owner;

    mapping(bytes32 => Anchor) private anchors;

    /// First anchoring of `root`, committing to `leafCount` leaves (each has a LeafAnchored event).
    event Anchored(bytes32 indexed root, uint32 leafCount);

    /// `root` was anchored again; nothing changed. Carries the original anchoring's time and block.
    event AlreadyAnchored(bytes32 indexed root, uint64 firstAnchoredAt, uint64 firstBlockNumber);

    /// One leaf of the first anchoring of `root`; `payload` is empty or the record's public text/parties.
    event LeafAnchored(bytes32 indexed leaf, bytes32 indexed root, bytes payload);

    error NotOwner();
    error EmptyBatch();
    error PayloadCountMismatch();
    error SingleLeafRootMismatch();

    constructor() {
        owner = msg.sender;
    }

    /// Anchors one hash directly (root = hash). Returns true for a first anchoring, false for a repeat.
    function anchor(bytes32 hash, bytes calldata payload) external returns (bool first) {
        bytes32[] memory leaves = new bytes32[](1);
        leaves[0] = hash;
        bytes[] memory payloads = new bytes[](1);
        payloads[0] = payload;
        return _anchor(hash, leaves, payloads);
    }

    /**
     * Anchors the Merkle root of several hashes in one transaction. `payloads` is empty (no payload
     * for any leaf) or has one entry per leaf, empty bytes meaning none.
     */
    function anchorBatch(bytes32 root, bytes32[] calldata leaves, bytes[] calldata payloads)
        external
        returns (bool first)
    {
        bytes[] memory all = new bytes[](leaves.length);
        if (payloads.length != 0) {
            if (payloads.length != leaves.length) revert PayloadCountMismatch();
            for (uint256 i = 0; i < leaves.length; i++) all[i] = payloads[i];
        }
        return _anchor(root, leaves, all);
    }

    /// Time and block of the first anchoring of `root`; (0, 0) when it was never anchored.
    function getAnchor(bytes32 root) external view returns (uint64 timestamp, uint64 blockNumber) {
        Anchor memory a = anchors[root];
        return (a.timestamp, a.blockNumber);
    }

    function _anchor(bytes32 root, bytes32[] memory leaves, bytes[] memory payloads) private returns (bool) {
        if (msg.sender != owner) revert NotOwner();
        if (leaves.length == 0) revert EmptyBatch();
        if (leaves.length == 1 && leaves[0] != root) revert SingleLeafRootMismatch();

        Anchor memory existing = anchors[root];
        if (existing.timestamp != 0) {
            emit AlreadyAnchored(root, existing.timestamp, existing.blockNumber);
            return false;
        }
        anchors[root] = Anchor(uint64(block.timestamp), uint64(block.number));
        emit Anchored(root, uint32(leaves.length));
        for (uint256 i = 0; i < leaves.length; i++) emit LeafAnchored(leaves[i], root, payloads[i]);
        return true;
    }
}
