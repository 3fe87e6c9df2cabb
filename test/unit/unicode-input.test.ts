import { isValidEmail, normalizeEmail } from '../../src/domain/identity/contact-points.js';
import { normalizeParties, optionalText, validateBody, validateParticipantsForType } from '../../src/domain/records/record-input.js';
import { textHash } from '../../src/domain/records/text.js';
import { IssueCollector } from '../../src/domain/shared/errors.js';

const ZWSP = '\u200b';
const RLO = '\u202e';
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`);

function bodyIssues(body: string): string[] {
  const issues = new IssueCollector();
  validateBody(issues, body);
  return issues.issues.map((issue) => issue.type);
}

function lineIssues(value: string, field = 'title'): { value: string | null; types: string[] } {
  const issues = new IssueCollector();
  const cleaned = optionalText(issues, value, field, 200);
  return { value: cleaned, types: issues.issues.map((issue) => issue.type) };
}

function partyIssues(displayName: string, contactPointValue: string): { party: { displayName: string; contactPointValue: string }; types: string[] } {
  const issues = new IssueCollector();
  const [party] = normalizeParties(issues, 'parties', [{ displayName, contactPointValue }], 14);
  return { party: party!, types: issues.issues.map((issue) => issue.type) };
}

describe('Unicode input: one normalization per field, then validation', () => {
  describe('bodies: words are counted on the cleaned text; empty once cleaned is refused', () => {
    it.each([
      ['1,000 words joined by U+200B are one word a reader sees', words(1000).join(ZWSP), ['too_few_words']],
      ['a body of only U+200B separated by spaces is empty', `${ZWSP} `.repeat(40), ['too_short', 'too_few_words']],
      ['a NUL character is refused', `We agree to share the garden\u0000 equally.`, ['control_character']],
      ['other control characters are refused', `We agree to share the garden\u0007 equally.`, ['control_character']],
      ['tabs and new lines are whitespace', 'We agree\tto share\nthe garden equally.', []],
    ])('%s', (_name, body, expected) => {
      expect(bodyIssues(body)).toEqual(expected);
    });

    it('hashes what a reader sees: "1\\u200b00" and "100" share a hash', () => {
      expect(textHash(`We owe 1${ZWSP}00 euros.`)).toBe(textHash('We owe 100 euros.'));
      expect(textHash(`We owe 1\ufeff00 euros\u2060.`)).toBe(textHash('We owe 100 euros.'));
    });
  });

  describe('titles and other single-line fields', () => {
    it.each([
      ['is NFC-normalized', 'Cafe\u0301 rules', 'Caf\u00e9 rules', []],
      ['loses zero-width characters', `Gar${ZWSP}den`, 'Garden', []],
      ['refuses a right-to-left override', `Garden ${RLO}txt.exe`, expect.anything(), ['bidi_control']],
      ['refuses a NUL character', 'Garden\u0000', expect.anything(), ['control_character']],
      ['of only zero-width characters is empty (null)', ZWSP.repeat(3), null, []],
    ])('%s', (_name, raw, value, types) => {
      expect(lineIssues(raw)).toEqual({ value, types });
    });
  });

  describe('display names and contact points', () => {
    it.each([
      ['a display name of one U+200B is empty', ZWSP, 'bob@example.com', ['too_short']],
      ['a display name with a right-to-left override is refused', `Bob${RLO}`, 'bob@example.com', ['bidi_control']],
      ['a display name with NUL is refused', 'Bob\u0000', 'bob@example.com', ['control_character']],
      ['an email with a zero-width space is refused', 'Bob', `bob${ZWSP}@example.com`, ['invalid_email']],
      ['an email with NUL is refused', 'Bob', 'bob\u0000@example.com', ['invalid_email']],
      ['an email with a byte-order mark is refused', 'Bob', 'bob\ufeff@example.com', ['invalid_email']],
    ])('%s', (_name, displayName, contact, types) => {
      expect(partyIssues(displayName, contact).types).toEqual(types);
    });

    it('normalizes a display name (NFC, zero-width removed)', () => {
      expect(partyIssues(`Jose\u0301${ZWSP}`, 'jose@example.com').party.displayName).toBe('Jos\u00e9');
    });

    it("does not let the initiator's own address plus U+200B pass as another party", () => {
      const issues = new IssueCollector();
      const parties = normalizeParties(issues, 'parties', [{ displayName: 'Me again', contactPointValue: `alice@example.com${ZWSP}` }], 14);
      validateParticipantsForType(issues, 'agreement', parties, [], { type: 'email', value: 'alice@example.com' });
      expect(issues.issues.length).toBeGreaterThan(0);
    });

    it.each([
      [`a${ZWSP}@example.com`, false],
      ['a\u0000@example.com', false],
      ['a\u202e@example.com', false],
      ['alice@example.com', true],
      ['ünï@exämple.com', true],
    ])('isValidEmail(%j) is %s', (email, valid) => {
      expect(isValidEmail(normalizeEmail(email))).toBe(valid);
    });
  });
});
