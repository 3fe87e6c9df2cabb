import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readAttachments } from '../../src/domain/sealing/attachments.js';
import { renderSealedPdf } from '../../src/domain/sealing/pdf.js';
import { loadSealKey, type SealKey } from '../../src/domain/sealing/seal-key.js';
import { signSealedPdf } from '../../src/domain/sealing/sign.js';
import { poppler, sampleSealedPdfInput } from '../support/sealing.js';

describe('Sealed PDF', () => {
  let workDir: string;
  let key: SealKey;
  const input = sampleSealedPdfInput();
  let unsigned: Uint8Array;
  let signedPath: string;
  let signed: Uint8Array;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'sealed-pdf-'));
    key = await loadSealKey({ production: false, localDir: path.join(workDir, 'local') });
    unsigned = await renderSealedPdf(input);
    const result = await signSealedPdf(unsigned, key, { reason: `Sealed ${input.reference}`, signingTime: input.sealedAt });
    expect(result.level).toBe('B-B');
    signed = result.bytes;
    signedPath = path.join(workDir, 'sealed.pdf');
    await writeFile(signedPath, signed);
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true, maxRetries: 3 });
  });

  it('carries a PAdES seal signature that poppler finds valid', async () => {
    const { stdout } = await poppler('pdfsig', [signedPath]);
    expect(stdout).toContain('Signature Type: ETSI.CAdES.detached');
    expect(stdout).toContain('Signature is Valid');
    expect(stdout).toContain('Total document signed');
    expect(stdout).toContain('development seal');
  });

  it('shows the body over several pages, the parties, the reference, the metadata hash and a certificate', async () => {
    const info = await poppler('pdfinfo', [signedPath]);
    const pages = Number(/Pages:\s+(\d+)/.exec(info.stdout)?.[1]);
    expect(pages).toBeGreaterThanOrEqual(3);
    const { stdout: text } = await poppler('pdftotext', [signedPath, '-']);
    const flat = text.replace(/\s+/g, ' ');
    expect(flat).toContain('Ο μισθωτής αναλαμβάνει να διατηρεί το ακίνητο');
    expect(flat).toContain('Арендатор обязуется содержать помещение');
    expect(flat).toContain('850 € payable');
    expect(flat).toContain('10. Purpose.');
    expect(text).toContain('Élodie Marchand');
    expect(text).toContain('Κωνσταντίνος Παπαδόπουλος');
    expect(text).toContain('Signed version 3');
    expect(text).toContain('Passkey at 14:42:07 UTC');
    expect(text).toContain(input.reference);
    expect(text).toContain(input.metadataHash);
    expect(text).toContain(input.verificationUrl);
    expect(text).toContain('Certificate of completion');
    expect(text).toContain('method satisfied');
    expect(text).toContain(`page 1 of ${pages}`);
    expect(text).toContain(`page ${pages} of ${pages}`);
  });

  it('carries the sealed metadata and the audit trail as attachments, byte for byte', async () => {
    const listed = await poppler('pdfdetach', ['-list', signedPath]);
    expect(listed.stdout).toContain('sealed-metadata.json');
    expect(listed.stdout).toContain('audit-trail.json');
    const out = path.join(workDir, 'detached');
    await import('node:fs/promises').then((fs) => fs.mkdir(out));
    await poppler('pdfdetach', ['-saveall', '-o', out, signedPath]);
    expect((await readdir(out)).sort()).toEqual(['audit-trail.json', 'sealed-metadata.json']);
    expect(Buffer.compare(await readFile(path.join(out, 'sealed-metadata.json')), Buffer.from(input.attachments.sealedMetadataJson))).toBe(0);
    expect(Buffer.compare(await readFile(path.join(out, 'audit-trail.json')), Buffer.from(input.attachments.auditTrailJson))).toBe(0);

    const attachments = await readAttachments(signed);
    expect(Buffer.from(attachments.get('sealed-metadata.json') ?? []).equals(Buffer.from(input.attachments.sealedMetadataJson))).toBe(true);
    expect(Buffer.from(attachments.get('audit-trail.json') ?? []).equals(Buffer.from(input.attachments.auditTrailJson))).toBe(true);
  });

  it('is reported invalid once one byte inside the signed range changes', async () => {
    const tampered = Buffer.from(signed);
    const byteRange = /\/ByteRange \[\s*0\s+(\d+)/.exec(tampered.toString('latin1'));
    const firstRangeEnd = Number(byteRange?.[1]);
    expect(firstRangeEnd).toBeGreaterThan(1000);
    // One byte in the middle of the first signed range (page content), the rest untouched.
    const target = Math.floor(firstRangeEnd / 2);
    tampered[target] = tampered[target]! ^ 0x01;
    const tamperedPath = path.join(workDir, 'tampered.pdf');
    await writeFile(tamperedPath, tampered);
    const { stdout } = await poppler('pdfsig', [tamperedPath]);
    expect(stdout).toContain('Signature Validation');
    expect(stdout).not.toContain('Signature is Valid');
    expect(stdout).toMatch(/Signature is Invalid|Digest Mismatch/);
  });

  it('renders the same bytes twice, and with an RSA seal signs them to the same bytes too', async () => {
    const again = await renderSealedPdf(sampleSealedPdfInput());
    expect(Buffer.from(again).equals(Buffer.from(unsigned))).toBe(true);
    const signedAgain = await signSealedPdf(again, key, { reason: `Sealed ${input.reference}`, signingTime: input.sealedAt });
    expect(Buffer.from(signedAgain.bytes).equals(Buffer.from(signed))).toBe(true);
  });

  it('draws unusual records without failing: no title, CJK and emoji, waived signers, a long ceremony', async () => {
    const base = sampleSealedPdfInput();
    const long = Array.from({ length: 90 }, (_, index) => ({ ...base.auditTrail[0]!, seq: index + 1, move: index % 2 ? 'method_satisfied' : 'signed' }));
    const pdf = await renderSealedPdf({
      ...base,
      recordType: 'witnessed_agreement',
      title: null,
      body: '契約書 — 賃貸借 😀 ✓\n\n\nTabs\tand\r\nWindows line ends.',
      participants: [
        { ...base.participants[0]!, displayName: '山田 太郎 😀' },
        { role: 'party', displayName: null, status: 'waived', signedVersion: null, signedAt: null, methods: [], signatureDigestHex: null },
        { role: 'witness', displayName: 'Witness', status: 'completed_without', signedVersion: null, signedAt: null, methods: [], signatureDigestHex: null },
      ],
      auditTrail: long,
    });
    const file = path.join(workDir, 'unusual.pdf');
    await writeFile(file, pdf);
    const { stdout: text } = await poppler('pdftotext', [file, '-']);
    expect(text).toContain('Witnessed agreement');
    expect(text).toContain('Windows line ends.');
    // Characters DejaVu cannot draw (CJK) show as U+FFFD rather than vanish; the names and roles stay apart.
    expect(text).toContain('\uFFFD\uFFFD\uFFFD — \uFFFD\uFFFD\uFFFD');
    expect(text).toMatch(/\uFFFD\uFFFD \uFFFD\uFFFD \S+\s+INITIATOR/);
    expect(text).toContain('Unnamed party');
    expect(text).toContain('Signature waived');
    expect(text).toContain('Completed without this signature');
    // The ceremony table runs over pages and repeats its header.
    expect(text.match(/TIME \(UTC\)/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('keeps the fonts subset, so the file stays small', () => {
    expect(unsigned.length).toBeLessThan(150_000);
  });

  it('renders every page to an image', async () => {
    const prefix = path.join(workDir, 'page');
    const { code } = await poppler('pdftoppm', ['-r', '40', '-png', signedPath, prefix]);
    expect(code).toBe(0);
    const images = (await readdir(workDir)).filter((name) => name.startsWith('page') && name.endsWith('.png'));
    expect(images.length).toBeGreaterThanOrEqual(3);
  });
});
