import { createHash } from 'node:crypto';
import { textHash } from '../../src/domain/records/text.js';
import { countCharacters, countWords, normalizeText } from '../../src/domain/text-rules.js';

describe('Record text normalization', () => {
  it('composes Unicode (NFC), collapses whitespace and trims', () => {
    expect(normalizeText('  Cafe\u0301\n\n and\t tea  ')).toBe('Caf\u00e9 and tea');
  });

  it('counts characters as code points and words after normalization', () => {
    const text = normalizeText('ab    cd \u{1F600}');
    expect(countCharacters(text)).toBe(7);
    expect(countWords(text)).toBe(3);
    expect(countWords('')).toBe(0);
  });

  it('hashes the normalized text, so whitespace-only differences share a hash', () => {
    const expected = `sha256:${createHash('sha256').update('We agree to it.').digest('hex')}`;
    expect(textHash('We  agree\nto it.  ')).toBe(expected);
    expect(textHash('We agree to it.')).toBe(expected);
  });
});
