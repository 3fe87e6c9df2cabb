import { deflateSync, inflateSync } from 'node:zlib';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib/dist/pdf-lib.esm.min.js';
import { renderSealedPdf } from '../../src/domain/sealing/pdf.js';
import { sampleSealedPdfInput } from '../support/sealing.js';

/**
 * The sealed PDF's streams are deflated by node:zlib, not by pdf-lib's pako (pdf-deflate.ts): every
 * compressed stream is byte for byte what node:zlib makes of its contents. pako's output differs for
 * some of them (the page contents and the font subsets here), so this fails when either hook stops
 * applying, e.g. after a pdf-lib upgrade.
 */
describe('sealed PDF compression', () => {
  it('deflates the page contents, the font subsets and the attachments with node:zlib', async () => {
    const doc = await PDFDocument.load(await renderSealedPdf(sampleSealedPdfInput()));
    const kinds = streamKinds(doc);
    const seen = new Map<string, number>();
    for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
      if (!(object instanceof PDFRawStream) || object.dict.get(PDFName.of('Filter')) !== PDFName.of('FlateDecode')) continue;
      const raw = object.getContents();
      const kind = kinds.get(ref.toString()) ?? 'other';
      expect({ kind, zlib: Buffer.from(deflateSync(inflateSync(raw))).equals(Buffer.from(raw)) }).toEqual({ kind, zlib: true });
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    }
    expect(Object.fromEntries(seen)).toEqual(expect.objectContaining({ page: doc.getPageCount(), font: 3, cmap: 3, attachment: 2 }));
  });
});

/** What each stream is, by reference: page contents, font files, ToUnicode maps, attached files. */
function streamKinds(doc: PDFDocument): Map<string, string> {
  const kinds = new Map<string, string>();
  const mark = (value: unknown, kind: string) => {
    if (value instanceof PDFRef) kinds.set(value.toString(), kind);
    if (value instanceof PDFArray) value.asArray().forEach((item) => mark(item, kind));
  };
  for (const page of doc.getPages()) mark(page.node.get(PDFName.of('Contents')), 'page');
  for (const [ref, object] of doc.context.enumerateIndirectObjects()) {
    if (object instanceof PDFRawStream && object.dict.get(PDFName.of('Type')) === PDFName.of('EmbeddedFile')) mark(ref, 'attachment');
    if (!(object instanceof PDFDict)) continue;
    for (const key of ['FontFile', 'FontFile2', 'FontFile3']) mark(object.get(PDFName.of(key)), 'font');
    mark(object.get(PDFName.of('ToUnicode')), 'cmap');
  }
  return kinds;
}
