import { HttpTimestampAuthority, PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString } from '@libpdf/core';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderSealedPdf } from '../../src/domain/sealing/pdf.js';
import { loadSealKey, type SealKey } from '../../src/domain/sealing/seal-key.js';
import { renewArchiveTimestamp, signSealedPdf } from '../../src/domain/sealing/sign.js';
import { main } from '../../packages/verifier/src/cli.js';
import { findSignatures, inspectPades } from '../../packages/verifier/src/pades.js';
import { startCertificateAuthority, type CertificateAuthority } from '../support/certificate-authority.js';
import { poppler, sampleSealedPdfInput } from '../support/sealing.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';

/**
 * Files changed after the seal the way an attacker would change them: an incremental update written
 * with a PDF library, then a document timestamp over the whole file from the test's own authority,
 * the one the verifier is told to trust. Each must fail, naming what changed; the genuine revisions
 * (a DSS update and a document timestamp, as renewal writes them) must pass.
 */
describe('After the seal, only validation data and document timestamps may follow', () => {
  let workDir: string;
  let ca: CertificateAuthority;
  let tsa: TimestampAuthorityServer;
  let key: SealKey;
  let sealed: Uint8Array;
  let rootFile: string;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'post-seal-'));
    ca = await startCertificateAuthority({ name: 'Attacker Test CA' });
    const [sealIdentity, tsaIdentity] = await Promise.all([ca.issue({ commonName: 'Record Signing Seal', kind: 'seal' }), ca.issue({ commonName: 'Trusted TSA', kind: 'timestamping' })]);
    tsa = await startTimestampAuthority('grant', { identity: tsaIdentity });
    await writeFile(path.join(workDir, 'seal.p12'), await sealIdentity.p12('pw'));
    key = await loadSealKey({ p12Path: path.join(workDir, 'seal.p12'), p12Password: 'pw', production: true, localDir: workDir });
    const input = sampleSealedPdfInput({ sealedAt: new Date() });
    const signed = await signSealedPdf(await renderSealedPdf(input), key, { reason: 'Sealed', signingTime: input.sealedAt, tsaUrls: [tsa.url] });
    expect(signed.level).toBe('B-LTA');
    sealed = signed.bytes;
    rootFile = path.join(workDir, 'root.pem');
    await writeFile(rootFile, ca.rootPem);
  });

  afterAll(async () => {
    await tsa?.close();
    await ca?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  /** An incremental update made by `edit`, closed by a genuine document timestamp of the trusted authority. */
  async function tamper(edit: (pdf: PDF) => void | Promise<void>): Promise<Uint8Array> {
    const pdf = await PDF.load(sealed);
    await edit(pdf);
    const appended = await pdf.save({ incremental: true });
    const { bytes } = await (await PDF.load(appended)).addTimestamp({ timestampAuthority: new HttpTimestampAuthority(tsa.url) });
    // Every byte of the sealed file is still there: the seal and its timestamps verify over them.
    expect(Buffer.from(bytes.subarray(0, sealed.length)).equals(Buffer.from(sealed))).toBe(true);
    return bytes;
  }

  async function refused(bytes: Uint8Array, named: RegExp): Promise<string> {
    const report = await inspectPades(bytes, { trust: [ca.rootCertificate] });
    expect(report.ok).toBe(false);
    expect(report.reason).toMatch(/^a revision after the seal changes the document: /);
    expect(report.reason).toMatch(named);
    return report.reason!;
  }

  it('passes the genuine file and a genuine renewal (a DSS update and a new document timestamp)', async () => {
    expect(await inspectPades(sealed, { trust: [ca.rootCertificate] })).toMatchObject({ ok: true, level: 'B-LTA', trust: { ok: true } });
    const renewed = await renewArchiveTimestamp(sealed, { tsaUrls: [tsa.url] });
    expect(renewed.bytes.length).toBeGreaterThan(sealed.length);
    const report = await inspectPades(renewed.bytes, { trust: [ca.rootCertificate] });
    expect(report).toMatchObject({ ok: true, level: 'B-LTA', trust: { ok: true } });
    expect(report.timestamps.filter((t) => t.kind === 'document')).toHaveLength(2);
    // poppler still finds the certification signature valid over its revision, and the renewal's timestamps total.
    const renewedFile = path.join(workDir, 'renewed.pdf');
    await writeFile(renewedFile, renewed.bytes);
    const pdfsig = await poppler('pdfsig', [renewedFile]);
    expect(pdfsig.stdout).toMatch(/Signature #1:[\s\S]*Signature Validation: Signature is Valid\./);
    expect(pdfsig.stdout).toMatch(/Signature #3:[\s\S]*Signature Field Name: Timestamp_2[\s\S]*Total document signed/);
    expect(report.certification).toEqual({ permissions: 2 });
    // And one more renewal on top of that one.
    const again = await renewArchiveTimestamp(renewed.bytes, { tsaUrls: [tsa.url] });
    expect(await inspectPades(again.bytes)).toMatchObject({ ok: true, level: 'B-LTA' });
  });

  it("refuses a change in a signature's zero padding, which no signature covers (the service's document_hash, over every byte, would not match either)", async () => {
    const seal = findSignatures(sealed).find((s) => s.kind === 'signature')!;
    const tampered = Uint8Array.from(sealed);
    // The last hex digit of the seal's /Contents hole, well inside its zero padding.
    tampered[seal.byteRange[2] - 2] = '7'.charCodeAt(0);
    const report = await inspectPades(tampered);
    expect(report.ok).toBe(false);
    expect(report.reason).toMatch(/signature's \/Contents carries other bytes than zero padding after its CMS/);
  });

  it('refuses a replaced embedded file (a forged sealed-metadata.json), even where pdfdetach shows the forgery', async () => {
    const bytes = await tamper((pdf) => {
      pdf.attachments.remove('sealed-metadata.json');
      pdf.attachments.add('sealed-metadata.json', new TextEncoder().encode('{"title":"Forged"}'), { mimeType: 'application/json' });
    });
    const file = path.join(workDir, 'forged-metadata.pdf');
    await writeFile(file, bytes);
    const detached = await poppler('pdfdetach', ['-list', file]);
    expect(detached.stdout).toContain('sealed-metadata.json');
    await refused(bytes, /\/Root \/Names \/EmbeddedFiles/);
  });

  it('refuses an /OpenAction added to the catalog, with --trust given and the same trusted authority closing the file', async () => {
    const bytes = await tamper((pdf) => {
      pdf.getCatalog().set('OpenAction', PdfDict.of({ S: PdfName.of('JavaScript'), JS: PdfString.fromString('app.alert("This agreement was cancelled")') }));
    });
    await refused(bytes, /\/Root \(object \d+\) gains \/OpenAction/);
    const file = path.join(workDir, 'open-action.pdf');
    await writeFile(file, bytes);
    const out: string[] = [];
    const code = await main([file, '--rpc', 'http://127.0.0.1:9/', '--trust', rootFile], { out: (t) => out.push(t), err: (t) => out.push(t) });
    expect(code).not.toBe(0);
    expect(out.join('')).toMatch(/NOT VERIFIED: .*gains \/OpenAction/);
  });

  it('refuses additional actions (/AA) on the catalog and on a page', async () => {
    const action = () => PdfDict.of({ S: PdfName.of('JavaScript'), JS: PdfString.fromString('app.alert("void")') });
    await refused(await tamper((pdf) => pdf.getCatalog().set('AA', PdfDict.of({ WC: action() }))), /\/Root \(object \d+\) gains \/AA/);
    await refused(await tamper((pdf) => pdf.getPage(0)!.dict.set('AA', PdfDict.of({ O: action() }))), /page 1 \(object \d+\) gains \/AA/);
  });

  it('refuses a changed /Info', async () => {
    await refused(await tamper((pdf) => pdf.setTitle('Cancelled agreement')), /\/Info/);
  });

  it('refuses an annotation added to a page', async () => {
    const bytes = await tamper((pdf) => {
      pdf.getPage(0)!.addTextAnnotation({ rect: { x: 50, y: 700, width: 20, height: 20 }, contents: 'Rent is 85 €, not 850 €', open: true });
    });
    await refused(bytes, /page 1 \/Annots\[\d+\] \(object \d+\) was added and is not a document timestamp's field/);
  });

  it('refuses a new page', async () => {
    await refused(await tamper((pdf) => void pdf.addPage()), /\/Root \/Pages.*(Count|Kids)/);
  });

  it('refuses a changed form field and an added one', async () => {
    await refused(
      await tamper((pdf) => {
        const field = pdf.getForm()!.getFields()[0]!;
        field.getDict().set('T', PdfString.fromString('Approved by the board'));
      }),
      /\/Root \/AcroForm \/Fields\[0\] \(object \d+\) \/T changed|\/T \(object \d+\) changed|\/Fields\[0\] \/T/,
    );
    await refused(
      await tamper((pdf) => {
        pdf.getForm()!.createTextField('note', {}).setValue('Cancelled');
      }),
      /\/Root \/AcroForm \/Fields\[\d+\] \(object \d+\) was added and is not a document timestamp's field/,
    );
  });

  it("refuses a document timestamp's field that carries an action, or whose widget is visible", async () => {
    const renewed = (await renewArchiveTimestamp(sealed, { tsaUrls: [tsa.url] })).bytes;
    /** The newest timestamp field changed in a later revision, closed by yet another timestamp. */
    const changeStamp = async (edit: (field: PdfDict) => void): Promise<Uint8Array> => {
      const pdf = await PDF.load(renewed);
      edit(pdf.getForm()!.getFields().at(-1)!.getDict());
      const appended = await pdf.save({ incremental: true });
      return (await (await PDF.load(appended)).addTimestamp({ timestampAuthority: new HttpTimestampAuthority(tsa.url) })).bytes;
    };
    const action = PdfDict.of({ K: PdfDict.of({ S: PdfName.of('JavaScript'), JS: PdfString.fromString('app.alert(1)') }) });
    expect((await inspectPades(await changeStamp((field) => field.set('AA', action)))).reason).toMatch(/\(a document timestamp's field\) carries \/AA/);
    const rect = new PdfArray([PdfNumber.of(100), PdfNumber.of(100), PdfNumber.of(400), PdfNumber.of(200)]);
    expect((await inspectPades(await changeStamp((field) => field.set('Rect', rect)))).reason).toMatch(/\(a document timestamp's widget\) is visible on the page/);
  });
});
