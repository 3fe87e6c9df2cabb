import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keccak256, toHex } from 'viem';
import { hashToBytes32 } from '../../packages/verifier/src/anchoring/merkle.js';
import { DEVELOPMENT_SIGNER_KEY, EvmAnchorChain } from '../../src/domain/anchoring/evm-chain.js';
import { main } from '../../packages/verifier/src/cli.js';
import { lastByteRange } from '../../packages/verifier/src/pades.js';
import { startPrivateChain, waitMined, type PrivateChain } from '../support/chain.js';
import { canonicalMetadata, makeSealedPdf, makeSealKey, metadataHashOf, type SealKey } from '../support/sealed-pdf-fixture.js';

/** Runs record-verify in-process; returns its exit code and what it printed. */
async function recordVerify(...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('record-verify (offline verifier) on a real anvil', () => {
  let chain: PrivateChain;
  let freshChain: PrivateChain;
  let anchors: EvmAnchorChain;
  let sealKey: SealKey;
  let otherKey: SealKey;
  let dir: string;
  const file = (name: string) => path.join(dir, name);
  const pdfsig = (name: string) => {
    const run = spawnSync('pdfsig', [file(name)], { encoding: 'utf8' });
    return `${run.stdout}${run.stderr}`;
  };

  const connect = (c: PrivateChain) =>
    EvmAnchorChain.connect({ rpcUrl: c.url, signerKey: DEVELOPMENT_SIGNER_KEY, deployIfMissing: true, addressFile: path.join(c.dir, 'registry.json') });

  /** Anchors these metadata hashes in one batch (with two unrelated seals) and waits for the receipt. */
  const anchorInBatch = async (...metadataHashes: string[]) => {
    const leaves = [...metadataHashes.map(hashToBytes32), keccak256(toHex(`other ${metadataHashes[0]}`)), keccak256(toHex(`another ${metadataHashes[0]}`))];
    const prepared = await anchors.prepareBatch(leaves.map((hash) => ({ hash })));
    await anchors.broadcast(prepared.rawTx);
    await waitMined(anchors, prepared.txHash);
    return prepared;
  };

  const sealedMetadata = (extra: Record<string, unknown>) =>
    canonicalMetadata({
      record: { agr_reference: 'AGR-TEST-0001', type: 'agreement', sealed_at: '2026-11-23T01:00:00.000Z' },
      anchor: { network: anchors.networkName(), chain_id: anchors.chainId, registry_address: anchors.registryAddress },
      ...extra,
    });

  beforeAll(async () => {
    [chain, freshChain] = await Promise.all([startPrivateChain(), startPrivateChain()]);
    anchors = await connect(chain);
    await connect(freshChain); // the same registry on a chain where nothing is anchored
    sealKey = makeSealKey('Record Signing Seal');
    otherKey = makeSealKey('Someone Else');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-verify-'));

    const metadata = sealedMetadata({ seal: { certificate_sha256: sealKey.fingerprint } });
    fs.writeFileSync(file('sealed.pdf'), await makeSealedPdf({ metadataBytes: metadata, key: sealKey }));
    // Same sealed metadata, signed by another key: the metadata names the real seal's fingerprint.
    fs.writeFileSync(file('other-key.pdf'), await makeSealedPdf({ metadataBytes: metadata, key: otherKey }));
    // Metadata without the fingerprint, signed by another key: only --seal-fingerprint can tell.
    const unpinned = sealedMetadata({});
    fs.writeFileSync(file('unpinned-other-key.pdf'), await makeSealedPdf({ metadataBytes: unpinned, key: otherKey }));
    await anchorInBatch(metadataHashOf(metadata), metadataHashOf(unpinned));
  }, 120_000); // two RSA keys, three signed PDFs and two chains: slow on a loaded machine

  afterAll(async () => {
    await Promise.all([chain?.destroy(), freshChain?.destroy()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('verifies the sealed PDF with the RPC alone: signature, seal key, metadata and batch anchor', async () => {
    const result = await recordVerify(file('sealed.pdf'), '--rpc', chain.url);
    expect(result.out).toContain('VERIFIED');
    expect(result.code).toBe(0);
    expect(pdfsig('sealed.pdf')).toContain('Signature is Valid.'); // poppler agrees

    const json = await recordVerify(file('sealed.pdf'), '--rpc', chain.url, '--json', '--seal-fingerprint', sealKey.fingerprint.toUpperCase());
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out);
    expect(report).toMatchObject({ verdict: 'verified', reason: null, signer: { fingerprint: sealKey.fingerprint } });
    expect(report.signer.subject).toContain('CN=Record Signing Seal');
    expect(report.checks.map((c: { check: string; ok: boolean }) => [c.check, c.ok])).toEqual([
      ['signature', true],
      ['seal_key', true],
      ['validity', true],
      ['trust', true],
      ['metadata', true],
      ['anchor', true],
    ]);
    expect(report.anchor).toMatchObject({ chainId: 31337, registryAddress: anchors.registryAddress, batchSize: 4 });
    expect(report.anchor.proof.length).toBeGreaterThan(0);
  });

  it('fails on a PDF with one changed byte', async () => {
    const bytes = fs.readFileSync(file('sealed.pdf'));
    const [, firstLength] = lastByteRange(bytes)!;
    const at = Math.floor(firstLength / 2); // a byte inside the signed range, in the document's body
    bytes[at] = bytes[at]! ^ 0x01;
    fs.writeFileSync(file('changed.pdf'), bytes);
    const result = await recordVerify(file('changed.pdf'), '--rpc', chain.url);
    expect(result.code).toBe(1);
    expect(pdfsig('changed.pdf')).not.toContain('Signature is Valid.');
    expect(result.out).toMatch(/NOT VERIFIED: the signed SHA-256 digest does not match the file's bytes: the PDF was changed after signing/);
  });

  it('fails on a forged signature value (the digest matches, the key does not)', async () => {
    const bytes = fs.readFileSync(file('sealed.pdf'));
    const [, firstLength, secondStart] = lastByteRange(bytes)!;
    const hole = bytes.subarray(firstLength + 1, secondStart - 1).toString('latin1');
    // B-B has no unsigned attributes: the last bytes before the zero padding are the signature value.
    const at = firstLength + 1 + hole.replace(/0+$/, '').length - 3;
    bytes[at] = bytes[at] === '1'.charCodeAt(0) ? '2'.charCodeAt(0) : '1'.charCodeAt(0);
    fs.writeFileSync(file('forged.pdf'), bytes);
    const result = await recordVerify(file('forged.pdf'), '--rpc', chain.url);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/NOT VERIFIED: the signature does not verify/);
  });

  it('fails on a byte appended after the signature', async () => {
    fs.writeFileSync(file('appended.pdf'), Buffer.concat([fs.readFileSync(file('sealed.pdf')), Buffer.from('\n')]));
    const result = await recordVerify(file('appended.pdf'), '--rpc', chain.url);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/does not cover the whole file/);
  });

  it('fails on a PDF signed by another key, named by the metadata or by --seal-fingerprint', async () => {
    const byMetadata = await recordVerify(file('other-key.pdf'), '--rpc', chain.url);
    expect(byMetadata.code).toBe(1);
    expect(byMetadata.out).toContain(`NOT VERIFIED: the PDF was signed by another key: certificate SHA-256 ${otherKey.fingerprint}, expected ${sealKey.fingerprint} from the sealed metadata`);

    const unpinned = await recordVerify(file('unpinned-other-key.pdf'), '--rpc', chain.url);
    expect(unpinned.code).toBe(0); // a valid signature by some key, and anchored: only a pinned key can tell
    const pinned = await recordVerify(file('unpinned-other-key.pdf'), '--rpc', chain.url, '--seal-fingerprint', sealKey.fingerprint);
    expect(pinned.code).toBe(1);
    expect(pinned.out).toContain('from --seal-fingerprint');
  });

  it('fails against a chain that lacks the anchor', async () => {
    const result = await recordVerify(file('sealed.pdf'), '--rpc', freshChain.url, '--json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out);
    expect(report.verdict).toBe('failed');
    expect(report.reason).toMatch(/^metadata_hash sha256:[0-9a-f]{64} is not anchored in registry 0x[0-9a-f]{40} on chain 31337$/);
    expect(report.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { check: string }) => c.check)).toEqual(['anchor']);
  });

  it('verifies a notarization from its sealed metadata and the file or its content hash', async () => {
    const content = Buffer.from('the notarized file\n');
    fs.writeFileSync(file('notarized.txt'), content);
    const contentHash = `sha256:${(await import('node:crypto')).createHash('sha256').update(content).digest('hex')}`;
    const metadata = sealedMetadata({ notarization: { content_hash: contentHash, content_type: 'file' } });
    fs.writeFileSync(file('notarization-metadata.json'), metadata);
    await anchorInBatch(metadataHashOf(metadata));

    const byFile = await recordVerify('--metadata', file('notarization-metadata.json'), '--file', file('notarized.txt'), '--rpc', chain.url);
    expect(byFile.out).toContain('VERIFIED');
    expect(byFile.code).toBe(0);
    const byHash = await recordVerify('--metadata', file('notarization-metadata.json'), '--content-hash', contentHash, '--rpc', chain.url, '--registry', anchors.registryAddress);
    expect(byHash.code).toBe(0);

    fs.writeFileSync(file('other.txt'), 'another file\n');
    const wrongFile = await recordVerify('--metadata', file('notarization-metadata.json'), '--file', file('other.txt'), '--rpc', chain.url);
    expect(wrongFile.code).toBe(1);
    expect(wrongFile.out).toMatch(/NOT VERIFIED: the file has SHA-256 [0-9a-f]{64}, which is not the sealed content hash/);
    const elsewhere = await recordVerify('--metadata', file('notarization-metadata.json'), '--file', file('notarized.txt'), '--rpc', freshChain.url);
    expect(elsewhere.code).toBe(1);
  });

  it('refuses metadata that is not canonical and wrong usage', async () => {
    fs.writeFileSync(file('pretty.json'), JSON.stringify({ notarization: { content_hash: `sha256:${'a'.repeat(64)}` } }, null, 2));
    const pretty = await recordVerify('--metadata', file('pretty.json'), '--content-hash', 'a'.repeat(64), '--rpc', chain.url);
    expect(pretty.code).toBe(1);
    expect(pretty.out).toContain('is not RFC 8785 canonical JSON');
    expect((await recordVerify(file('sealed.pdf'))).code).toBe(2);
    expect((await recordVerify('--metadata', file('pretty.json'), '--rpc', chain.url)).code).toBe(2);
    expect((await recordVerify(file('missing.pdf'), '--rpc', chain.url)).err).toContain('no such file');
    // --at must be a date, and --trust a certificate.
    const badDate = await recordVerify(file('sealed.pdf'), '--rpc', chain.url, '--at', 'next tuesday');
    expect(badDate.code).toBe(2);
    expect(badDate.err).toContain('--at next tuesday is not a date');
    fs.writeFileSync(file('not-a-cert.pem'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    const badTrust = await recordVerify(file('sealed.pdf'), '--rpc', chain.url, '--trust', file('not-a-cert.pem'));
    expect(badTrust.code).toBe(2);
    expect(badTrust.err).toContain('holds no CERTIFICATE block');
  });
});
