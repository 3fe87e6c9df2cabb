import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { FONT_FILES } from '../../src/domain/sealing/fonts.js';
import { jest } from '@jest/globals';
import { layoutByWord } from '../../src/domain/sealing/pdf-layout.js';
import { renderSealedPdf } from '../../src/domain/sealing/pdf.js';
import { SAMPLE_BODY_PARAGRAPHS, sampleSealedPdfInput } from '../support/sealing.js';

const LINES = [
  ...SAMPLE_BODY_PARAGRAPHS.filter(Boolean),
  'official affluent fluffy waffle fjord: ligatures fi, fl and ff inside words',
  '契約書 — 賃貸借 😀 ✓ and combining marks: e\u0301, A\u0308',
  'שלום עולם, זה הסכם',
  'هذا اتفاق بين الطرفين',
  'Mixed English עברית text العربية here',
  '  two  spaces,\ta tab and a trailing space ',
  'Κωνσταντίνος and Élodie: ἀρχή, Ἀθῆναι, ﬁ ﬂ, 850 € or ₽ 1 200 — «quoted» “text” ‘here’…',
  'Арендатор and Ǆemal: ǅ ǆ, Ŀl, ĳ, ẞ ß, ǻ, ṩ',
  'e\u0301 and A\u0308 combining, then Ω\u0301 and и\u0306',
  // Hashes and ids, laid out from their characters' glyphs.
  '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ff fff0 1ffe-ab12 3a654ffc-fad9-4118-b5ce-4fed108782fc',
  'Signature 0ffice ffi ffl fi-fl ff-ff sha256:deadbeef sha256:ff00-aa note:cafe 194: a:b:cc',
];

/** Shaping a word at a time gives every line the glyphs fontkit gives it whole, in each embedded font. */
describe('PDF text layout by word', () => {
  for (const [name, file] of Object.entries(FONT_FILES)) {
    it(`lays out each line as fontkit does, in ${name}`, () => {
      const bytes = readFileSync(file);
      const plain = fontkit.create(bytes);
      const byWord = layoutByWord(fontkit.create(bytes));
      for (const line of LINES) {
        const ids = (font: typeof plain) => font.layout(line).glyphs.map((glyph) => glyph.id);
        expect({ line, glyphs: ids(byWord) }).toEqual({ line, glyphs: ids(plain) });
        // A second time, from the words already laid out.
        expect(ids(byWord)).toEqual(ids(plain));
      }
    });
  }
});

/** Documents that draw the same glyphs share one encoding of each font subset (pdf-layout.ts's subsetsEncodedOnce). */
describe('PDF font subsets', () => {
  it('encodes a glyph list once, and gives the next document the same bytes', async () => {
    const subsetClass = Object.getPrototypeOf(fontkit.create(readFileSync(FONT_FILES.regular)).createSubset()) as { encode: (...args: unknown[]) => unknown };
    const encode = jest.spyOn(subsetClass, 'encode');
    try {
      const input = { ...sampleSealedPdfInput(), reference: 'AGR-SUBS-0001' };
      const first = await renderSealedPdf(input);
      const encodedFirst = encode.mock.calls.length;
      const second = await renderSealedPdf(input);
      expect(encodedFirst).toBeGreaterThan(0);
      expect(encode.mock.calls.length).toBe(encodedFirst);
      expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    } finally {
      encode.mockRestore();
    }
  });
});
