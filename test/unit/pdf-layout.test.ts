import { readFileSync } from 'node:fs';
import fontkit from '@pdf-lib/fontkit';
import { FONT_FILES } from '../../src/domain/sealing/fonts.js';
import { layoutByWord } from '../../src/domain/sealing/pdf-layout.js';
import { SAMPLE_BODY_PARAGRAPHS } from '../support/sealing.js';

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
