import { execFile } from 'node:child_process';
import { HttpTimestampAuthority, PDF } from '@libpdf/core';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { renderSealedPdf } from '../../src/domain/sealing/pdf.js';
import { loadSealKey, type SealKey } from '../../src/domain/sealing/seal-key.js';
import { signSealedPdf } from '../../src/domain/sealing/sign.js';
import { findSignatures, inspectPades } from '../../packages/verifier/src/pades.js';
import { main } from '../../packages/verifier/src/cli.js';
import { startCertificateAuthority, type CertificateAuthority, type IssuedIdentity } from '../support/certificate-authority.js';
import { poppler, sampleSealedPdfInput } from '../support/sealing.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';

const run = promisify(execFile);
const DAY = 86_400_000;

/** Runs an outside tool; a non-zero exit is returned, not thrown. */
async function tool(command: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(command, args, { maxBuffer: 64 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
  }
}

type QpdfObject = { value?: unknown; stream?: { dict: Record<string, unknown>; data?: string } };

/** The PDF's objects as qpdf reads them (JSON v2, stream data inline and decoded). */
async function qpdfObjects(file: string): Promise<{ objects: Record<string, QpdfObject>; trailer: Record<string, unknown> }> {
  const { stdout, code, stderr } = await tool('qpdf', ['--json=2', '--json-stream-data=inline', '--decode-level=generalized', file]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const qpdf = (JSON.parse(stdout) as { qpdf: [unknown, Record<string, QpdfObject>] }).qpdf[1];
  return { objects: qpdf, trailer: (qpdf.trailer!.value ?? {}) as Record<string, unknown> };
}

describe('Sealed PDFs at PAdES B-LTA (a local CA with CRLs and OCSP, a timestamp authority it certifies)', () => {
  let workDir: string;
  let ca: CertificateAuthority;
  let sealIdentity: IssuedIdentity;
  let tsaIdentity: IssuedIdentity;
  let tsa: TimestampAuthorityServer;
  let key: SealKey;
  let pdf: Uint8Array;
  let rootFile: string;
  const input = sampleSealedPdfInput({ sealedAt: new Date() });

  async function keyFor(identity: IssuedIdentity, name: string): Promise<SealKey> {
    const file = path.join(workDir, `${name}.p12`);
    await writeFile(file, await identity.p12('seal-password'));
    return loadSealKey({ p12Path: file, p12Password: 'seal-password', production: true, localDir: workDir });
  }
  const save = async (bytes: Uint8Array, name: string): Promise<string> => {
    const file = path.join(workDir, name);
    await writeFile(file, bytes);
    return file;
  };

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'seal-blta-'));
    ca = await startCertificateAuthority({ name: 'Test Seal CA' });
    [sealIdentity, tsaIdentity] = await Promise.all([ca.issue({ commonName: 'Record Signing Seal', kind: 'seal' }), ca.issue({ commonName: 'Test TSA', kind: 'timestamping' })]);
    tsa = await startTimestampAuthority('grant', { identity: tsaIdentity });
    key = await keyFor(sealIdentity, 'seal');
    pdf = await renderSealedPdf(input);
    rootFile = await save(new TextEncoder().encode(ca.rootPem), 'root.pem');
  });

  afterAll(async () => {
    await tsa?.close();
    await ca?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('is B-LTA, a certification signature (DocMDP) without signing-time: pdfsig accepts the signature and lists the timestamp, qpdf finds no error, the DSS holds both chains with revocation data, openssl verifies the document timestamp, record-verify prints B-LTA', async () => {
    const signed = await signSealedPdf(pdf, key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls: [tsa.url], tsaTimeoutMs: 3000 });
    expect(signed).toMatchObject({ level: 'B-LTA', timestampUrl: tsa.url, documentTimestampUrl: tsa.url, timestampFailures: [], validationWarnings: [] });
    const file = await save(signed.bytes, 'b-lta.pdf');

    const pdfsig = await poppler('pdfsig', [file]);
    expect(pdfsig.stdout).toMatch(/Signature #1:[\s\S]*Signer Certificate Common Name: Record Signing Seal[\s\S]*Signature Type: ETSI\.CAdES\.detached[\s\S]*Signature Validation: Signature is Valid\./);
    expect(pdfsig.stdout).toMatch(/Signature #2:[\s\S]*Signature Field Name: Timestamp_1[\s\S]*Signer Certificate Common Name: Test TSA[\s\S]*Total document signed/);

    const check = await tool('qpdf', ['--check', file]);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('No syntax or stream encoding errors found');

    // The DSS, read from the objects by qpdf: the certificates of both chains and their revocation data.
    const { objects, trailer } = await qpdfObjects(file);
    const resolve = (ref: unknown): QpdfObject => objects[`obj:${String(ref)}`]!;
    const catalog = resolve(trailer['/Root']).value as Record<string, unknown>;
    const dss = (typeof catalog['/DSS'] === 'string' ? resolve(catalog['/DSS']).value : catalog['/DSS']) as Record<string, string[]>;
    const streamsOf = (name: string) => (dss[name] ?? []).map((ref) => Buffer.from(resolve(ref).stream!.data!, 'base64'));
    const certificates = streamsOf('/Certs').map((der) => new X509Certificate(der));
    expect(certificates.map((c) => c.subject).sort()).toEqual(['CN=Record Signing Seal', 'CN=Test Seal CA', 'CN=Test TSA']);
    // Each OCSP answer, read by openssl: together they cover the seal's and the authority's certificates, both good.
    const statuses: string[] = [];
    for (const [i, der] of streamsOf('/OCSPs').entries()) {
      const answer = await tool('openssl', ['ocsp', '-respin', await save(der, `ocsp-${i}.der`), '-resp_text', '-noverify']);
      for (const m of answer.stdout.matchAll(/Serial Number: ([0-9A-F]+)\s+Cert Status: (\w+)/g)) statuses.push(`${m[1]}:${m[2]}`);
    }
    const serial = (identity: IssuedIdentity) => new X509Certificate(identity.certificate).serialNumber.toUpperCase();
    expect(statuses).toEqual(expect.arrayContaining([`${serial(sealIdentity)}:good`, `${serial(tsaIdentity)}:good`]));
    expect(ca.requests['/ocsp'] ?? 0).toBeGreaterThanOrEqual(2);

    // The seal certifies the document (DocMDP, form filling and signing allowed: DSS and document timestamps may follow).
    const perms = catalog['/Perms'] as Record<string, string>;
    const sealDictionary = resolve(perms['/DocMDP']).value as Record<string, unknown>;
    expect(sealDictionary).toMatchObject({ '/Type': '/Sig', '/SubFilter': '/ETSI.CAdES.detached', '/Reference': [{ '/Type': '/SigRef', '/TransformMethod': '/DocMDP', '/TransformParams': { '/P': 2, '/V': '/1.2' } }] });
    // OpenSSL verifies the seal's CMS over its byte range; its signed attributes carry no signing-time (PAdES takes the time from /M).
    const seal = findSignatures(signed.bytes).find((s) => s.kind === 'signature')!;
    const sealCovered = Buffer.concat([signed.bytes.subarray(0, seal.byteRange[1]), signed.bytes.subarray(seal.byteRange[2], seal.byteRange[2] + seal.byteRange[3])]);
    const sealCms = await save(seal.contents, 'seal.der');
    const cmsVerified = await tool('openssl', ['cms', '-verify', '-inform', 'DER', '-in', sealCms, '-binary', '-content', await save(sealCovered, 'seal-covered.bin'), '-CAfile', rootFile, '-purpose', 'any', '-out', '/dev/null']);
    expect(cmsVerified.stderr).toContain('CMS Verification successful');
    const printed = await tool('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', sealCms]);
    const signedAttributes = printed.stdout.slice(printed.stdout.indexOf('signedAttrs:'), printed.stdout.indexOf('signatureAlgorithm:', printed.stdout.indexOf('signedAttrs:')));
    expect([...signedAttributes.matchAll(/object: (\S+)/g)].map((m) => m[1])).toEqual(['contentType', 'undefined', 'messageDigest', 'id-smime-aa-signingCertificateV2']);
    expect(printed.stdout).not.toContain('signingTime');

    // OpenSSL verifies the document timestamp over its byte range, chained to the CA.
    const stamp = findSignatures(signed.bytes).find((s) => s.kind === 'document')!;
    const [, a, b, c] = stamp.byteRange;
    const covered = Buffer.concat([signed.bytes.subarray(0, a), signed.bytes.subarray(b, b + c)]);
    const tsaFile = await save(new TextEncoder().encode(tsaIdentity.certificatePem), 'tsa.pem');
    const verified = await tool('openssl', ['ts', '-verify', '-data', await save(covered, 'covered.bin'), '-in', await save(stamp.contents, 'token.der'), '-token_in', '-CAfile', rootFile, '-untrusted', tsaFile]);
    expect(verified.stdout).toContain('Verification: OK');

    const out: string[] = [];
    const code = await main([file, '--rpc', 'http://127.0.0.1:9/', '--trust', rootFile], { out: (t) => out.push(t), err: (t) => out.push(t) });
    const report = out.join('');
    expect(report).toContain('PAdES level B-LTA');
    expect(report).toMatch(/valid +signature timestamp: \S+ by CN=Test TSA/);
    expect(report).toMatch(/valid +document timestamp, revision \d+: \S+ by CN=Test TSA/);
    expect(report).toMatch(/DSS: 3 certificates, \d+ OCSP answers?, \d+ CRLs?/);
    expect(report).toMatch(/^ok {3}signature/m);
    expect(report).toMatch(/^ok {3}validity/m);
    expect(report).toMatch(/^ok {3}trust .*chains to a trusted certificate/m);
    expect(report).toMatch(/^ok {3}metadata/m);
    // No chain answers on that port: only the anchor check fails.
    expect(report).toMatch(/^FAIL anchor/m);
    expect(code).toBe(1);
  });

  it('one changed byte in any revision fails it', async () => {
    const signed = await signSealedPdf(pdf, key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls: [tsa.url] });
    const bytes = signed.bytes;
    const ends = [...Buffer.from(bytes).toString('latin1').matchAll(/%%EOF\r?\n?/g)].map((m) => m.index + m[0].length);
    expect(ends.length).toBeGreaterThanOrEqual(4);
    expect((await inspectPades(bytes)).reason).toBeNull();
    for (let r = 0; r < ends.length; r += 1) {
      const from = r === 0 ? 0 : ends[r - 1]!;
      // A byte in the middle of the revision, outside any signature's contents hole.
      const holes = findSignatures(bytes).map((s) => [s.byteRange[1], s.byteRange[2]] as const);
      let at = Math.floor((from + ends[r]!) / 2);
      while (holes.some(([x, y]) => at >= x && at < y)) at += 1;
      const tampered = Uint8Array.from(bytes);
      tampered[at] = tampered[at]! ^ 0x01;
      const report = await inspectPades(tampered);
      expect({ revision: r + 1, ok: report.ok }).toEqual({ revision: r + 1, ok: false });
    }
  });

  it('refuses a later revision that changes what a page shows, even one closed by a genuine timestamp', async () => {
    const signed = await signSealedPdf(pdf, key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls: [tsa.url] });
    // Someone appends a revision with a note on the first page, then has a real authority timestamp the whole file.
    const edited = await PDF.load(signed.bytes);
    edited.getPage(0)!.addTextAnnotation({ rect: { x: 50, y: 700, width: 20, height: 20 }, contents: 'Rent is 85 €, not 850 €', open: true });
    const appended = await edited.save({ incremental: true });
    const { bytes } = await (await PDF.load(appended)).addTimestamp({ timestampAuthority: new HttpTimestampAuthority(tsa.url) });
    expect(Buffer.from(bytes.subarray(0, signed.bytes.length)).equals(Buffer.from(signed.bytes))).toBe(true);
    const report = await inspectPades(bytes);
    expect(report).toMatchObject({ ok: false });
    expect(report.reason).toMatch(/^a revision after the seal changes the document: page 1 \/Annots\[0\] \(object \d+\) was added/);
    // The genuine file, with its own validation data and timestamp revisions, passes the same check.
    expect((await inspectPades(signed.bytes)).ok).toBe(true);
  });

  it('stays valid through its timestamps after the seal certificate expires, where B-B does not', async () => {
    const shortLived = await ca.issue({ commonName: 'Short-lived Seal', kind: 'seal', notAfter: new Date(Date.now() + 2 * DAY) });
    const shortKey = await keyFor(shortLived, 'short');
    const lta = await signSealedPdf(pdf, shortKey, { reason: 'Sealed', signingTime: new Date(), tsaUrls: [tsa.url] });
    const basic = await signSealedPdf(pdf, shortKey, { reason: 'Sealed', signingTime: new Date() });
    expect([lta.level, basic.level]).toEqual(['B-LTA', 'B-B']);
    const later = new Date(Date.now() + 30 * DAY);

    const ltaLater = await inspectPades(lta.bytes, { at: later });
    expect(ltaLater).toMatchObject({ ok: true, level: 'B-LTA', validity: { ok: true } });
    const basicLater = await inspectPades(basic.bytes, { at: later });
    expect(basicLater).toMatchObject({ ok: true, level: 'B-B', validity: { ok: false } });
    expect(basicLater.validity.detail).toContain('CN=Short-lived Seal is valid');

    // After the newest timestamp's certificate expires too, only a renewed archive timestamp helps.
    const afterTsa = await inspectPades(lta.bytes, { at: new Date(tsaIdentity.notAfter.getTime() + DAY) });
    expect(afterTsa.validity).toMatchObject({ ok: false });
    expect(afterTsa.validity.detail).toContain('CN=Test TSA is valid');
  });

  it('says when revocation was never established, and fails past the seal certificate\'s expiry when nothing proves it was not revoked', async () => {
    const shortLived = await ca.issue({ commonName: 'Unchecked Seal', kind: 'seal', notAfter: new Date(Date.now() + 2 * DAY) });
    const shortKey = await keyFor(shortLived, 'unchecked');
    ca.revocationDown = true;
    let signed;
    try {
      signed = await signSealedPdf(pdf, shortKey, { reason: 'Sealed', signingTime: new Date(), tsaUrls: [tsa.url], tsaTimeoutMs: 2000 });
    } finally {
      ca.revocationDown = false;
    }
    expect(signed.level).toBe('B-T');
    const now = await inspectPades(signed.bytes);
    expect(now).toMatchObject({ ok: true, level: 'B-T', validity: { ok: true } });
    expect(now.validity.detail).toContain('the revocation of CN=Unchecked Seal');
    expect(now.validity.detail).toContain('was not established');
    const later = await inspectPades(signed.bytes, { at: new Date(Date.now() + 30 * DAY) });
    expect(later.validity.ok).toBe(false);
    expect(later.validity.detail).toMatch(/CN=Unchecked Seal expired on \S+ and the file holds no OCSP answer or CRL for it: nothing proves it was not revoked before the signature timestamp/);
  });

  it('trusts the seal only through the certificates given, and never fails integrity for trust', async () => {
    const signed = await signSealedPdf(pdf, key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls: [tsa.url] });
    const other = await startCertificateAuthority({ name: 'Another CA' });
    try {
      const untrusted = await inspectPades(signed.bytes, { trust: [other.rootCertificate] });
      expect(untrusted).toMatchObject({ ok: true, trust: { checked: true, ok: false } });
      expect(untrusted.trust.detail).toContain('CN=Test Seal CA, which is not among the trusted certificates');
      expect((await inspectPades(signed.bytes, { trust: [other.rootCertificate, ca.rootCertificate] })).trust).toMatchObject({ checked: true, ok: true });
      expect((await inspectPades(signed.bytes)).trust).toMatchObject({ checked: false, ok: true });
    } finally {
      await other.close();
    }
  });

  it('trusts each timestamp authority only through the certificates given, too', async () => {
    const other = await startCertificateAuthority({ name: 'Timestamp CA' });
    const otherTsa = await startTimestampAuthority('grant', { identity: await other.issue({ commonName: 'Other TSA', kind: 'timestamping' }) });
    try {
      const signed = await signSealedPdf(pdf, key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls: [otherTsa.url] });
      const sealOnly = await inspectPades(signed.bytes, { trust: [ca.rootCertificate] });
      expect(sealOnly).toMatchObject({ ok: true, trust: { checked: true, ok: false } });
      expect(sealOnly.trust.detail).toBe('the seal certificate chains to a trusted certificate (CN=Test Seal CA); the timestamp authority CN=Other TSA does not chain to a trusted certificate');
      const both = await inspectPades(signed.bytes, { trust: [ca.rootCertificate, other.rootCertificate] });
      expect(both.trust).toEqual({ checked: true, ok: true, detail: 'the seal certificate chains to a trusted certificate (CN=Test Seal CA), and so does each timestamp authority\'s (CN=Other TSA)' });
      // Trust never touches integrity: the signatures and timestamps hold either way.
      expect(sealOnly.timestamps.every((stamp) => stamp.ok)).toBe(true);
    } finally {
      await otherTsa.close();
      await other.close();
    }
  });

  it('fails validity when the seal certificate was revoked before it signed', async () => {
    const revoked = await ca.issue({ commonName: 'Revoked Seal', kind: 'seal' });
    ca.revoke(revoked, new Date(Date.now() - 60_000));
    const signed = await signSealedPdf(pdf, await keyFor(revoked, 'revoked'), { reason: 'Sealed', signingTime: new Date(), tsaUrls: [tsa.url] });
    const report = await inspectPades(signed.bytes);
    expect(report).toMatchObject({ ok: true, validity: { ok: false } });
    expect(report.validity.detail).toMatch(/CN=Revoked Seal was revoked on .* \((OCSP|CRL)\)/);
  });
});
