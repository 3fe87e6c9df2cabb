import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../packages/verifier/src/cli.js';
import { startCertificateAuthority, type CertificateAuthority, type IssuedIdentity } from '../support/certificate-authority.js';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';

/**
 * The operator replaces SEAL_P12_PATH: new seals use the new key, and PDFs sealed with the old one
 * keep verifying. One service instance per key, on one database and one chain.
 */
describe('Seal key rotation', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-rotation-'));
  let chain: PrivateChain;
  let ca: CertificateAuthority;
  let keys: { old: IssuedIdentity; next: IssuedIdentity };
  let before: TestApp;
  let after: TestApp;
  const sealed: Record<'old' | 'next', { record: SealedAgreement; pdf: string }> = {} as never;

  const p12 = async (identity: IssuedIdentity, name: string): Promise<string> => {
    const file = path.join(dir, `${name}.p12`);
    fs.writeFileSync(file, await identity.p12(`${name}-password`));
    return file;
  };
  const pem = (identity: IssuedIdentity, name: string): string => {
    const file = path.join(dir, `${name}.pem`);
    fs.writeFileSync(file, identity.certificatePem);
    return file;
  };

  async function sealWith(t: TestApp, who: 'old' | 'next'): Promise<void> {
    const record = await sealTwoPartyAgreement(t, {}, { initiator: `${who}-a@example.com`, party: `${who}-b@example.com` });
    await t.app.services.sealArtifacts.make(record.id);
    await t.app.services.anchoring!.settle();
    const response = await fetch(`${t.url}/api/v1/agreements/${record.id}/document`, { headers: { authorization: `Bearer ${record.initiator}` } });
    expect(response.status).toBe(200);
    const file = path.join(dir, `${who}.pdf`);
    fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    sealed[who] = { record, pdf: file };
  }

  beforeAll(async () => {
    chain = await startPrivateChain();
    ca = await startCertificateAuthority({ name: 'Rotation CA' });
    keys = { old: await ca.issue({ commonName: 'Seal 2026', kind: 'seal' }), next: await ca.issue({ commonName: 'Seal 2027', kind: 'seal' }) };
    const common = { CHAIN_RPC_URL: chain.url, LOCAL_STATE_DIR: chain.dir };
    before = await startTestApp({ ...common, SEAL_P12_PATH: await p12(keys.old, 'old'), SEAL_P12_PASSWORD: 'old-password' });
    await sealWith(before, 'old');
    // The operator's rotation: the same database and chain, the service started with the new key.
    after = await startTestApp({ ...common, SEAL_P12_PATH: await p12(keys.next, 'next'), SEAL_P12_PASSWORD: 'next-password' }, { sameDatabaseAs: before });
    await sealWith(after, 'next');
  }, 180_000);
  afterAll(async () => {
    await after?.stop().catch(() => undefined);
    await before?.stop().catch(() => undefined);
    await ca?.close();
    await chain?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function recordVerify(pdf: string, trust: string[]): Promise<{ code: number; printed: string; report: { verdict: string; checks: { check: string; ok: boolean; detail: string }[]; signer: { fingerprint: string } } }> {
    const out: string[] = [];
    const args = [pdf, '--rpc', chain.url, ...trust.flatMap((file) => ['--trust', file])];
    const code = await main([...args, '--json'], { out: (text) => out.push(text), err: (text) => out.push(text) });
    const printed: string[] = [];
    await main(args, { out: (text) => printed.push(text), err: (text) => printed.push(text) });
    return { code, printed: printed.join(''), report: JSON.parse(out.join('')) };
  }
  const checks = (report: { checks: { check: string; ok: boolean }[] }) => Object.fromEntries(report.checks.map((c) => [c.check, c.ok]));
  const fingerprint = (identity: IssuedIdentity) => `sha256:${new X509Certificate(identity.certificate).fingerprint256.replace(/:/g, '').toLowerCase()}`;

  it('each PDF names its own seal certificate; both verify with record-verify trusting both certificates', async () => {
    const trustBoth = [pem(keys.old, 'old'), pem(keys.next, 'next')];
    for (const who of ['old', 'next'] as const) {
      const { code, report, printed } = await recordVerify(sealed[who].pdf, trustBoth);
      expect({ who, code, verdict: report.verdict }).toEqual({ who, code: 0, verdict: 'verified' });
      expect(checks(report)).toEqual({ signature: true, seal_key: true, validity: true, trust: true, metadata: true, anchor: true });
      expect(`sha256:${report.signer.fingerprint}`).toBe(fingerprint(keys[who]));
      // The sealed metadata pins the certificate: the seal_key check reads it there.
      expect(report.checks.find((c) => c.check === 'seal_key')!.detail).toContain('the sealed metadata (seal.certificate_sha256)');
      expect(printed).toContain('VERIFIED: every check holds.');
    }
  });

  it('an earlier PDF fails only on trust, never on integrity, when its certificate is not among the trusted ones', async () => {
    const { code, report, printed } = await recordVerify(sealed.old.pdf, [pem(keys.next, 'next')]);
    expect(code).toBe(1);
    expect(checks(report)).toEqual({ signature: true, seal_key: true, validity: true, trust: false, metadata: true, anchor: true });
    expect(printed).toMatch(/FAIL trust +the seal chains to CN=Rotation CA, which is not among the trusted certificates/);
    // The CA that issued both keys is trusted in one step.
    const viaCa = path.join(dir, 'ca.pem');
    fs.writeFileSync(viaCa, ca.rootPem);
    expect((await recordVerify(sealed.old.pdf, [viaCa])).code).toBe(0);
  });

  it('public verification shows each record\'s seal certificate, and the earlier PDF still verifies by its hash', async () => {
    for (const who of ['old', 'next'] as const) {
      const lookup = await after.request('GET', `/api/v1/public/verify/${sealed[who].record.reference}`);
      expect(lookup.body.document).toMatchObject({ pades_level: 'B-B', certificate_subject: `CN=Seal ${who === 'old' ? 2026 : 2027}`, certificate_sha256: fingerprint(keys[who]), versions: 1 });
      expect(`sha256:${(lookup.body.sealed_metadata as { seal: { certificate_sha256: string } }).seal.certificate_sha256}`).toBe(fingerprint(keys[who]));
      const bytes = fs.readFileSync(sealed[who].pdf);
      const byHash = await after.request('POST', `/api/v1/public/verify/${sealed[who].record.reference}`, { body: { document_hash: `sha256:${createHash('sha256').update(bytes).digest('hex')}` } });
      expect(byHash.body).toMatchObject({ verdict: 'verified', document_version: { version: 1, current: true } });
    }
  });
});
