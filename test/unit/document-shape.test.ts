import { documentTooDeep } from '../../src/graph/document-shape.js';

/** `documentTooDeep` remembers the documents it found shallow: the verdicts stay what the walk says. */
describe('document nesting before parsing', () => {
  const nested = (levels: number) => `query { ${'a { '.repeat(levels)}b${' }'.repeat(levels)} }`;

  it('passes a shallow document, again from what it remembers', () => {
    expect(documentTooDeep(nested(10))).toBeNull();
    expect(documentTooDeep(nested(10))).toBeNull();
  });

  it('refuses a deep document every time, after shallow ones of the same length too', () => {
    const deep = nested(40);
    const sameLength = `${nested(10)}${' '.repeat(deep.length - nested(10).length)}`;
    expect(sameLength.length).toBe(deep.length);
    expect(documentTooDeep(sameLength)).toBeNull();
    expect(documentTooDeep(deep)?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(documentTooDeep(deep)?.extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('judges a document against a lower limit by walking it, whatever was remembered', () => {
    expect(documentTooDeep(nested(10))).toBeNull();
    expect(documentTooDeep(nested(10), 5)).not.toBeNull();
  });

  it('passes the remembered documents after many others came and went', () => {
    for (let i = 0; i < 300; i += 1) expect(documentTooDeep(`query { f${i} { g } }`)).toBeNull();
    expect(documentTooDeep(nested(10))).toBeNull();
    expect(documentTooDeep(nested(31))).not.toBeNull();
  });
});
