import path from 'node:path';
import { createPublicClient, createWalletClient, getAbiItem, http, keccak256, parseEther, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { AnchorChainError, type Hex } from '../../packages/verifier/src/anchoring/chain.js';
import { transactionAnchors, verifyInclusion } from '../../packages/verifier/src/anchoring/merkle.js';
import { registryAbi } from '../../packages/verifier/src/anchoring/registry-artifact.js';
import { DEVELOPMENT_SIGNER_KEY, EvmAnchorChain } from '../../src/domain/anchoring/evm-chain.js';
import { rpc } from '../../scripts/local-chain.mjs';
import { startPrivateChain, waitMined, type PrivateChain } from '../support/chain.js';

const hashOf = (label: string): Hex => keccak256(toHex(label));

describe('EvmAnchorChain on a real anvil', () => {
  let chain: PrivateChain;
  let anchors: EvmAnchorChain;
  const connect = () =>
    EvmAnchorChain.connect({
      rpcUrl: chain.url,
      signerKey: DEVELOPMENT_SIGNER_KEY,
      deployIfMissing: true,
      addressFile: path.join(chain.dir, 'registry.json'),
    });

  beforeAll(async () => {
    chain = await startPrivateChain();
    anchors = await connect();
  });
  afterAll(async () => {
    await chain.destroy();
  });

  /** How many times the registry logged this leaf (each first anchoring logs it once). */
  const leafEvents = async (hash: Hex) => {
    const client = createPublicClient({ transport: http(chain.url) });
    const logs = await client.getLogs({ address: anchors.registryAddress, event: getAbiItem({ abi: registryAbi, name: 'LeafAnchored' }), args: { leaf: hash }, fromBlock: 0n });
    return logs.length;
  };

  const anchorNow = async (leaves: { hash: Hex; payload?: Hex }[]) => {
    const prepared = await anchors.prepareBatch(leaves);
    await anchors.broadcast(prepared.rawTx);
    await waitMined(anchors, prepared.txHash);
    return prepared;
  };

  it('deploys the registry once and remembers it per chain', async () => {
    const again = await connect();
    expect(again.registryAddress).toBe(anchors.registryAddress);
    expect(anchors.networkName()).toBe('local-development');
  });

  it('anchors a single hash directly and finds it', async () => {
    const hash = hashOf('single seal');
    const prepared = await anchorNow([{ hash }]);
    expect(prepared.root).toBe(hash);
    expect(prepared.proofs).toEqual([[]]);
    const found = await anchors.findAnchor(hash);
    expect(found).toMatchObject({ hash, root: hash, proof: [], leaves: [hash], txHash: prepared.txHash, payload: '0x' });
    expect(found!.anchoredAt.getTime()).toBeGreaterThan(0);
    expect(await anchors.getAnchor(hash)).toMatchObject({ blockNumber: found!.blockNumber });
  });

  it('anchors a batch of five in one transaction and finds each leaf through the batch', async () => {
    const leaves = [1, 2, 3, 4, 5].map((i) => ({ hash: hashOf(`batch seal ${i}`), payload: i === 2 ? toHex('the sealed text') : undefined }));
    const prepared = await anchorNow(leaves);
    const tx = await anchors.readAnchorTransaction(prepared.txHash);
    expect(tx?.anchored).toHaveLength(1);
    expect(tx?.anchored[0]?.root).toBe(prepared.root);
    expect(tx?.anchored[0]?.leaves.map((l) => l.hash)).toEqual(leaves.map((l) => l.hash));
    expect(tx?.anchored[0]?.leaves[1]?.payload).toBe(toHex('the sealed text'));
    for (const [i, leaf] of leaves.entries()) {
      const found = await anchors.findAnchor(leaf.hash);
      expect(found).toMatchObject({ txHash: prepared.txHash, root: prepared.root });
      expect(verifyInclusion(found!.root, leaf.hash, found!.proof)).toBe(true);
      expect(verifyInclusion(prepared.root, leaf.hash, prepared.proofs[i]!)).toBe(true);
    }
    expect(await anchors.findAnchor(hashOf('never anchored'))).toBeNull();
    expect(transactionAnchors(tx!.anchored, leaves[3]!.hash)).toBe(true);
    expect(transactionAnchors(tx!.anchored, leaves[3]!.hash, prepared.proofs[3])).toBe(true);
    expect(transactionAnchors(tx!.anchored, hashOf('never anchored'))).toBe(false);
  });

  it('detects a re-anchoring and changes nothing', async () => {
    const hash = hashOf('anchored twice');
    const first = await anchorNow([{ hash }]);
    const before = await anchors.findAnchor(hash);
    const second = await anchorNow([{ hash }]);
    expect(second.txHash).not.toBe(first.txHash);
    const tx = await anchors.readAnchorTransaction(second.txHash);
    expect(tx?.anchored).toEqual([]);
    expect(tx?.alreadyAnchored).toEqual([{ root: hash, firstAnchoredAt: before!.anchoredAt, firstBlockNumber: before!.blockNumber }]);
    expect(await anchors.findAnchor(hash)).toEqual(before);
  });

  it('reads an unrelated transaction (a plain transfer) as no anchoring', async () => {
    const wallet = createWalletClient({ account: privateKeyToAccount(DEVELOPMENT_SIGNER_KEY), chain: { ...foundry, rpcUrls: { default: { http: [chain.url] } } }, transport: http(chain.url) });
    const transfer = await wallet.sendTransaction({ to: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', value: parseEther('0.01') });
    await waitMined(anchors, transfer);
    expect(await anchors.readAnchorTransaction(transfer)).toBeNull();
    expect(await anchors.readAnchorTransaction(hashOf('no such transaction'))).toBeNull();
  });

  it('persists then broadcasts: the same raw transaction twice lands once', async () => {
    const hash = hashOf('persist then broadcast');
    const prepared = await anchors.prepareBatch([{ hash }]);
    expect(await anchors.confirmation(prepared.txHash)).toEqual({ state: 'unknown', txHash: prepared.txHash });
    const first = await anchors.broadcast(prepared.rawTx);
    const second = await anchors.broadcast(prepared.rawTx);
    await waitMined(anchors, prepared.txHash);
    expect(first).toEqual({ txHash: prepared.txHash, outcome: 'sent' });
    expect(second.txHash).toBe(prepared.txHash);
    expect(['already_known', 'mined']).toContain(second.outcome);
    const state = await anchors.confirmation(prepared.txHash);
    expect(state).toMatchObject({ state: 'mined', confirmations: 1, confirmed: true });
    expect((await anchors.findAnchor(hash))?.txHash).toBe(prepared.txHash);
    expect(await leafEvents(hash)).toBe(1);
  });

  it('notices a reorganised block: the receipt disappears, and the same raw transaction lands again', async () => {
    const hash = hashOf('anchored in a block that is reorganised away');
    const prepared = await anchors.prepareBatch([{ hash }]);
    const snapshot = await rpc(chain.url, 'evm_snapshot');
    await anchors.broadcast(prepared.rawTx);
    await waitMined(anchors, prepared.txHash);
    const before = await anchors.confirmation(prepared.txHash);
    expect(before).toMatchObject({ state: 'mined', confirmed: true });

    expect(await rpc(chain.url, 'evm_revert', [snapshot])).toBe(true);
    expect((await anchors.confirmation(prepared.txHash)).state).toMatch(/^(unknown|pending)$/);
    expect(await anchors.findAnchor(hash)).toBeNull();

    await anchors.broadcast(prepared.rawTx);
    await waitMined(anchors, prepared.txHash);
    expect((await anchors.findAnchor(hash))?.txHash).toBe(prepared.txHash);
    expect(await leafEvents(hash)).toBe(1);
  });

  it('with the chain stopped, broadcast fails clearly without secrets; after a restart the same bytes land once and the state survived', async () => {
    const earlier = await anchorNow([{ hash: hashOf('anchored before the restart') }]);
    const hash = hashOf('sent during an outage');
    const prepared = await anchors.prepareBatch([{ hash }]);
    await chain.stop();
    const error = await anchors.broadcast(prepared.rawTx).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AnchorChainError);
    expect((error as AnchorChainError).code).toBe('unreachable');
    expect((error as Error).message).toMatch(/unreachable/);
    expect((error as Error).message).not.toContain(DEVELOPMENT_SIGNER_KEY.slice(2));
    expect((error as Error).message).not.toContain(prepared.rawTx.slice(2, 40));

    await chain.start();
    expect((await anchors.findAnchor(hashOf('anchored before the restart')))?.txHash).toBe(earlier.txHash);
    expect((await anchors.broadcast(prepared.rawTx)).outcome).toBe('sent');
    expect((await anchors.broadcast(prepared.rawTx)).outcome).not.toBe('sent');
    await waitMined(anchors, prepared.txHash);
    const found = await anchors.findAnchor(hash);
    expect(found?.txHash).toBe(prepared.txHash);
    expect(await leafEvents(hash)).toBe(1);
    const again = await connect();
    expect(again.registryAddress).toBe(anchors.registryAddress);
  });
});
