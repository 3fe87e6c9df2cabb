import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVELOPMENT_SIGNER_KEY } from '../../src/domain/anchoring/evm-chain.js';
import { main } from '../../packages/verifier/src/cli.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { createHash } from 'node:crypto';

const sha = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;


describe('Verification by anyone: document hash, transaction hash, and the offline verifier', () => {
  let chain: PrivateChain;
  let t: TestApp;
  let sealed: SealedAgreement;
  let pdf: Buffer;
  let txHash: string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-verify-'));

  beforeAll(async () => {
    chain = await startPrivateChain();
    t = await startTestApp({ CHAIN_RPC_URL: chain.url, LOCAL_STATE_DIR: chain.dir, JOBS_ENABLED: 'true' });
    sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'ana@example.com', party: 'ben@example.com' });
    await t.app.services.anchoring!.settle();
    pdf = await waitFor(async () => {
      const response = await fetch(`${t.url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } });
      return response.status === 200 ? Buffer.from(await response.arrayBuffer()) : null;
    });
    fs.writeFileSync(path.join(dir, 'sealed.pdf'), pdf);
    txHash = (await t.request('GET', `/api/v1/agreements/${sealed.id}`, { token: sealed.initiator })).body.blockchain.tx_hash;
  }, 180_000);
  afterAll(async () => {
    await t.stop().catch(() => undefined);
    await chain.destroy();
  });

  const verify = (body: Record<string, unknown>, reference = sealed.reference) => t.request('POST', `/api/v1/public/verify/${reference}`, { body });

  it('verifies by the sealed PDF\'s document hash and by the anchoring transaction hash', async () => {
    expect((await verify({ document_hash: sha(pdf) })).body).toMatchObject({ verdict: 'verified', verified: true, match_method: 'document_hash' });
    expect((await verify({ tx_hash: txHash })).body).toMatchObject({ verdict: 'verified', match_method: 'tx_hash' });
    expect((await verify({ document_hash: sha(Buffer.from('another file')) })).body).toMatchObject({ verdict: 'no_match', record_match: false });
  });

  it('answers no_match for a transaction that is not this record\'s anchoring (a plain transfer), and 422 for a malformed hash', async () => {
    const wallet = createWalletClient({ account: privateKeyToAccount(DEVELOPMENT_SIGNER_KEY), transport: http(chain.url), chain: { id: 31337, name: 'anvil', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.url] } } } });
    const transfer = await wallet.sendTransaction({ to: '0x000000000000000000000000000000000000dEaD', value: parseEther('0.001') });
    expect((await verify({ tx_hash: transfer })).body).toMatchObject({ verdict: 'no_match', record_match: false });
    expect((await verify({ tx_hash: '0x1234' })).status).toBe(422);
  });

  it('names the current authority through a chain of amendments (matched_superseded)', async () => {
    let current = sealed;
    for (const round of [1, 2]) {
      const amended = await t.request('POST', `/api/v1/agreements/${current.id}/amend`, { token: sealed.initiator, body: { body: `Amendment ${round}: we share the garden and water it twice a week.` } });
      expect(amended.status).toBe(201);
      const id = amended.body.id as string;
      expect((await signWithEmailOtp(t, sealed.initiator, 'ana@example.com', id)).status).toBe(200);
      expect((await t.request('POST', `/api/v1/agreements/${id}/submit`, { token: sealed.initiator })).status).toBe(200);
      expect((await signWithEmailOtp(t, sealed.party, 'ben@example.com', id)).body.status).toBe('sealed');
      current = { ...current, id, reference: amended.body.agr_reference };
    }
    const result = (await verify({ document_hash: sha(pdf) })).body;
    expect(result).toMatchObject({ verdict: 'matched_superseded', status: 'superseded', current_authority: current.reference });
  }, 120_000);

  it('public responses leak nothing private, field by field', async () => {
    const view = await t.request('GET', `/api/v1/public/agreements/${sealed.reference}`);
    expect(Object.keys(view.body).sort()).toEqual(['agr_reference', 'blockchain', 'expires_at', 'identicon', 'notarization', 'party_count', 'sealed_at', 'status', 'type']);
    expect(Object.keys(view.body.identicon).sort()).toEqual(['alt_text', 'available', 'digest', 'height', 'kind', 'short_hash', 'width']);
    expect(view.body.identicon.kind).toBe('document');
    expect(view.body.blockchain).toMatchObject({ status: 'confirmed', tx_hash: txHash });
    const certificate = await t.request('GET', `/api/v1/public/verify/${sealed.reference}`);
    expect(Object.keys(certificate.body).sort()).toEqual([
      'agr_reference', 'blockchain', 'current_authority', 'document', 'document_version', 'identicon', 'match_method', 'metadata_hash', 'record_found', 'record_match', 'sealed_at', 'sealed_metadata', 'status', 'verdict', 'verified',
    ]);
    // The certificate lookup carries the chain record too, as every public route of a sealed record does.
    expect(certificate.body.blockchain).toMatchObject({ status: 'confirmed', tx_hash: txHash });
    // The sealed PDF as anyone may see it: its level and the seal certificate, nothing about the participants.
    expect(Object.keys(certificate.body.document).sort()).toEqual(['certificate_sha256', 'certificate_subject', 'current_hash', 'pades_level', 'versions']);
    expect(certificate.body.document_version).toBeNull();
    const metadata = certificate.body.sealed_metadata;
    expect(metadata.participants.map((p: Record<string, unknown>) => Object.keys(p).sort())).toEqual([
      ['confirmed_at', 'confirmed_version', 'display_name', 'evidence', 'role', 'signature_digest', 'status'],
      ['confirmed_at', 'confirmed_version', 'display_name', 'evidence', 'role', 'signature_digest', 'status'],
    ]);
    expect(metadata.participants.every((p: { display_name: unknown }) => p.display_name === null)).toBe(true);
    const everything = JSON.stringify([view.body, certificate.body]);
    for (const secret of ['@example.com', 'Bob Example', 'We agree to share the garden', sealed.id]) expect(everything).not.toContain(secret);
    expect(certificate.body.metadata_hash).toBe(certificate.body.identicon.digest);
    const withSvg = await t.request('GET', `/api/v1/public/agreements/${sealed.reference}?image_representation=compatibility_data_uri`);
    expect(withSvg.body.identicon.svg_data_uri).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it('record-verify passes on the downloaded PDF with the service stopped, and fails clearly otherwise', async () => {
    await t.stop();
    const run = async (...args: string[]) => {
      let out = '';
      const code = await main(args, { out: (s) => (out += s), err: (s) => (out += s) });
      return { code, out };
    };
    const good = await run(path.join(dir, 'sealed.pdf'), '--rpc', chain.url);
    expect(good).toMatchObject({ code: 0 });

    const tampered = Buffer.from(pdf);
    const at = tampered.indexOf('/Type /Page') + 3;
    tampered[at] = tampered[at]! ^ 0x01;
    fs.writeFileSync(path.join(dir, 'tampered.pdf'), tampered);
    const bad = await run(path.join(dir, 'tampered.pdf'), '--rpc', chain.url);
    expect(bad.code).not.toBe(0);
    expect(bad.out.toLowerCase()).toMatch(/signature|digest/);

    const fresh = await startPrivateChain();
    try {
      const elsewhere = await run(path.join(dir, 'sealed.pdf'), '--rpc', fresh.url);
      expect(elsewhere.code).not.toBe(0);
      expect(elsewhere.out.toLowerCase()).toMatch(/anchor|registry/);
    } finally {
      await fresh.destroy();
    }
  }, 60_000);
});
