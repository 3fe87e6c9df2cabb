import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HttpTimestampAuthority, P12Signer, PDF } from '@libpdf/core';
import { PDFDocument } from 'pdf-lib';
import { startCertificateAuthority, type CertificateAuthority, type IssuedIdentity } from '../support/certificate-authority.js';
import { poppler } from '../support/sealing.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';

const run = promisify(execFile);

/** Runs openssl; a non-zero exit is returned, not thrown (verify exits 2 on a revoked certificate). */
async function openssl(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run('openssl', args);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
  }
}

/** The local CA and TSA as outside tools see them: OpenSSL, poppler's pdfsig and @libpdf/core. */
describe('Test certificate authority', () => {
  let workDir: string;
  let ca: CertificateAuthority;
  let seal: IssuedIdentity;
  let timestamping: IssuedIdentity;
  let tsa: TimestampAuthorityServer;
  let rootPem: string;
  const file = (name: string) => path.join(workDir, name);

  async function writePem(identity: IssuedIdentity): Promise<string> {
    const pem = file(`${identity.fingerprint}.pem`);
    await writeFile(pem, identity.certificatePem);
    return pem;
  }

  async function fetchCrlPem(): Promise<string> {
    const der = Buffer.from(await (await fetch(`${ca.url}/crl`)).arrayBuffer());
    const pem = file('crl.pem');
    await writeFile(pem, `-----BEGIN X509 CRL-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END X509 CRL-----\n`);
    return pem;
  }

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'test-ca-'));
    ca = await startCertificateAuthority({ name: 'Unit test root' });
    [seal, timestamping] = await Promise.all([ca.issue({ commonName: 'Unit test seal', kind: 'seal' }), ca.issue({ commonName: 'Unit test TSA', kind: 'timestamping' })]);
    tsa = await startTimestampAuthority('grant', { identity: timestamping });
    rootPem = file('root.pem');
    await writeFile(rootPem, ca.rootPem);
  });

  afterAll(async () => {
    await Promise.all([tsa?.close(), ca?.close()]);
    await rm(workDir, { recursive: true, force: true });
  });

  it('issues seal and timestamping certificates that chain to the root and point back at the CA', async () => {
    for (const identity of [seal, timestamping]) {
      const { stdout } = await openssl(['verify', '-CAfile', rootPem, await writePem(identity)]);
      expect(stdout).toContain(': OK');
      const certificate = new X509Certificate(identity.certificate);
      expect(certificate.ca).toBe(false);
      expect(certificate.fingerprint256.replaceAll(':', '').toLowerCase()).toBe(identity.fingerprint);
      expect(certificate.infoAccess).toContain(`OCSP - URI:${ca.url}/ocsp`);
      expect(certificate.infoAccess).toContain(`CA Issuers - URI:${ca.url}/ca.cer`);
      expect(identity.chain).toEqual([ca.rootCertificate]);
    }
    expect(new X509Certificate(timestamping.certificate).keyUsage).toEqual(['1.3.6.1.5.5.7.3.8']);
    const { stdout: text } = await openssl(['x509', '-in', await writePem(seal), '-noout', '-ext', 'keyUsage,crlDistributionPoints']);
    expect(text).toMatch(/critical\s+Digital Signature, Non Repudiation/);
    expect(text).toContain(`URI:${ca.url}/crl`);
  });

  it('publishes a CRL signed by the root, and lists revoked certificates on it', async () => {
    const crlDer = file('fresh.crl');
    await writeFile(crlDer, Buffer.from(await (await fetch(`${ca.url}/crl`)).arrayBuffer()));
    expect((await openssl(['crl', '-inform', 'DER', '-in', crlDer, '-CAfile', rootPem, '-noout'])).stderr).toContain('verify OK');

    const revoked = await ca.issue({ commonName: 'Revoked seal', kind: 'seal' });
    ca.revoke(revoked);
    const crlPem = await fetchCrlPem();
    const rejected = await openssl(['verify', '-crl_check', '-CRLfile', crlPem, '-CAfile', rootPem, await writePem(revoked)]);
    expect(rejected.code).not.toBe(0);
    expect(rejected.stdout + rejected.stderr).toContain('certificate revoked');
    expect((await openssl(['verify', '-crl_check', '-CRLfile', crlPem, '-CAfile', rootPem, await writePem(seal)])).stdout).toContain(': OK');
    expect(ca.requests['/crl']).toBeGreaterThanOrEqual(2);
  });

  it('answers OCSP good and revoked, signed by the root, over POST and GET', async () => {
    const revoked = await ca.issue({ commonName: 'Revoked over OCSP', kind: 'seal' });
    ca.revoke(revoked);
    for (const [identity, status] of [
      [seal, 'good'],
      [revoked, 'revoked'],
    ] as const) {
      const pem = await writePem(identity);
      const { stdout, stderr } = await openssl(['ocsp', '-issuer', rootPem, '-cert', pem, '-url', `${ca.url}/ocsp`, '-CAfile', rootPem, '-resp_text']);
      expect(stderr).toContain('Response verify OK');
      expect(stdout).toContain(`${pem}: ${status}`);
      expect(stdout).toContain('OCSP Nonce');
    }

    const pem = await writePem(seal);
    const requestFile = file('ocsp-request.der');
    await openssl(['ocsp', '-issuer', rootPem, '-cert', pem, '-no_nonce', '-reqout', requestFile]);
    const encoded = encodeURIComponent((await readFile(requestFile)).toString('base64'));
    const responseFile = file('ocsp-response.der');
    await writeFile(responseFile, Buffer.from(await (await fetch(`${ca.url}/ocsp/${encoded}`)).arrayBuffer()));
    const { stdout, stderr } = await openssl(['ocsp', '-respin', responseFile, '-issuer', rootPem, '-cert', pem, '-CAfile', rootPem, '-no_nonce']);
    expect(stderr).toContain('Response verify OK');
    expect(stdout).toContain(`${pem}: good`);
  });

  it('exports a PKCS#12 that @libpdf/core and OpenSSL open', async () => {
    const p12 = await seal.p12('pw');
    const signer = await P12Signer.create(p12, 'pw');
    expect(Buffer.from(signer.certificate).equals(Buffer.from(seal.certificate))).toBe(true);
    expect(signer.certificateChain.map((certificate) => Buffer.from(certificate).toString('hex'))).toContain(Buffer.from(ca.rootCertificate).toString('hex'));
    await writeFile(file('seal.p12'), p12);
    const { stdout } = await openssl(['pkcs12', '-info', '-nokeys', '-passin', 'pass:pw', '-in', file('seal.p12')]);
    expect(stdout).toContain('CN = Unit test seal');
    expect(stdout).toContain('CN = Unit test root');
  });

  it('lets the TSA sign with the issued identity, at the time its clock says', async () => {
    const dated = await startTimestampAuthority('grant', { identity: timestamping, clock: () => new Date('2030-01-02T03:04:05Z') });
    try {
      const data = file('stamped.txt');
      await writeFile(data, 'timestamped');
      await openssl(['ts', '-query', '-data', data, '-sha256', '-cert', '-out', file('query.tsq')]);
      const reply = await fetch(dated.url, { method: 'POST', headers: { 'Content-Type': 'application/timestamp-query' }, body: await readFile(file('query.tsq')) });
      await writeFile(file('reply.tsr'), Buffer.from(await reply.arrayBuffer()));
      // -verify needs the TSA certificate critical id-kp-timeStamping and an ESS signingCertificate(V2) that matches it.
      expect((await openssl(['ts', '-verify', '-data', data, '-in', file('reply.tsr'), '-CAfile', rootPem])).stdout).toContain('Verification: OK');
      expect((await openssl(['ts', '-reply', '-in', file('reply.tsr'), '-text'])).stdout).toContain('Time stamp: Jan  2 03:04:05 2030 GMT');
    } finally {
      await dated.close();
    }
  });

  it('backs a B-LTA signature that pdfsig reads as valid, with OCSP answers from the CA in the DSS', async () => {
    const document = await PDFDocument.create();
    document.addPage().drawText('B-LTA');
    const signer = await P12Signer.create(await seal.p12('pw'), 'pw');
    const before = { ...ca.requests };
    const { bytes, warnings } = await (await PDF.load(await document.save())).sign({ signer, level: 'B-LTA', timestampAuthority: new HttpTimestampAuthority(tsa.url) });
    const fetched = (route: string) => (ca.requests[route] ?? 0) - (before[route] ?? 0);
    expect(warnings).toEqual([]);
    // libpdf asks OCSP first and only falls back to the CRL when OCSP gives nothing: the seal, then the TSA twice
    // (the signature's timestamp, then the document timestamp, each with its own cache).
    expect([fetched('/ocsp'), fetched('/crl')]).toEqual([3, 0]);

    await writeFile(file('b-lta.pdf'), bytes);
    const { stdout } = await poppler('pdfsig', [file('b-lta.pdf')]);
    expect(stdout).toContain('Signer Certificate Common Name: Unit test seal');
    expect(stdout).toContain('Signature is Valid');
    // pdfsig lists the document timestamp but does not verify ETSI.RFC3161, so OpenSSL checks its token.
    expect(stdout).toContain('Signer Certificate Common Name: Unit test TSA');
    const text = Buffer.from(bytes).toString('latin1');
    expect(text).toMatch(/\/DSS[^]*\/OCSPs[^]*\/Type \/DocTimeStamp[^]*\/DSS[^]*\/OCSPs/);
    const stamp = /\/Type \/DocTimeStamp[^]*?\/ByteRange \[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]\s*\/Contents <([0-9A-Fa-f]+)>/.exec(text);
    const [start, length, resume, rest] = stamp!.slice(1, 5).map(Number) as [number, number, number, number];
    await writeFile(file('covered.bin'), Buffer.concat([bytes.subarray(start, start + length), bytes.subarray(resume, resume + rest)]));
    await writeFile(file('doc-timestamp.der'), Buffer.from(stamp![5]!, 'hex'));
    const verified = await openssl(['ts', '-verify', '-data', file('covered.bin'), '-in', file('doc-timestamp.der'), '-token_in', '-CAfile', rootPem]);
    expect(verified.stdout).toContain('Verification: OK');
  });
});
