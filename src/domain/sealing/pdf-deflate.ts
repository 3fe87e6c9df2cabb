import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { PDFFlateStream, PDFName, type PDFDocument } from 'pdf-lib/dist/pdf-lib.esm.min.js';

const FILTER = PDFName.of('Filter');
const FLATE_DECODE = PDFName.of('FlateDecode');

/**
 * pdf-lib compresses its streams with pako, zlib written in JavaScript; node:zlib is the same deflate
 * in C: about four times faster on this service's streams (a 40 kB font subset: 0.8 ms against 3.7),
 * and its working memory is not garbage on the render thread's heap. pako was about a tenth of a
 * sealed PDF's drawing time. The output is deflate either way (some streams' bytes differ).
 *
 * Two places, both through pdf-lib's public objects: the document's `flateStream` (font subsets, the
 * attached files), set when the document is made; and, just before `save`, every page content stream
 * still to be compressed (`PDFFlateStream`s marked FlateDecode), whose contents are read from their
 * operators once and deflated here. pdf-deflate.test.ts fails if either stops applying.
 */
export function deflateNatively(doc: PDFDocument): { beforeSave(): void } {
  const context = doc.context;
  context.flateStream = (contents, dict = {}) => {
    const bytes = typeof contents === 'string' ? Buffer.from(contents, 'latin1') : contents;
    // An attached file is the record's own (its metadata, its trail): never the same in two PDFs.
    const deflated = dict.Type === 'EmbeddedFile' ? deflateSync(bytes) : deflatedOnce(bytes);
    return context.stream(deflated, { ...dict, Filter: 'FlateDecode' });
  };
  return {
    beforeSave: () => {
      for (const [, object] of context.enumerateIndirectObjects()) {
        if (!(object instanceof PDFFlateStream) || object.dict.get(FILTER) !== FLATE_DECODE) continue;
        let deflated: Uint8Array | undefined;
        const contents = () => (deflated ??= deflateSync(object.getUnencodedContents()));
        object.getContents = contents;
        object.getContentsSize = () => contents().length;
      }
    },
  };
}

/** Streams at least this long are looked up in `deflated` before they are deflated. */
const KNOWN_FROM_BYTES = 8192;
/** Deflated streams kept, by the SHA-256 of their bytes, least recently used first out. */
const deflated = new LRUCache<string, Buffer>({ max: 16 });

/**
 * A font subset of the same glyphs is the same bytes in every PDF (pdf-layout encodes each glyph list
 * once): its deflated bytes are kept and reused, about 1.3 ms a PDF. Short streams (text, cmaps) are
 * deflated as they come.
 */
function deflatedOnce(bytes: Uint8Array): Buffer {
  if (bytes.length < KNOWN_FROM_BYTES) return deflateSync(bytes);
  const key = createHash('sha256').update(bytes).digest('base64');
  let known = deflated.get(key);
  if (known === undefined) deflated.set(key, (known = deflateSync(bytes)));
  return known;
}
