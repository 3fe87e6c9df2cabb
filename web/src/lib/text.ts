/** The service's text normalization (src/domain/records/text.ts): NFC, whitespace collapsed, trimmed. */
export function normalizeText(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

export function countCharacters(text: string): number {
  return [...normalizeText(text)].length;
}

export function countWords(text: string): number {
  const normalized = normalizeText(text);
  return normalized === '' ? 0 : normalized.split(' ').length;
}

/** The limits of the interface specification, shown as people type. */
export const LIMITS = {
  body: { minCharacters: 10, maxCharacters: 7000, minWords: 2, maxWords: 350 },
  title: 200,
  summary: 500,
  reason: 500,
  displayName: 50,
  parties: 14,
  witnesses: 5,
  coNotarizers: 14,
  label: 200,
  lapseDays: { min: 1, max: 30 },
} as const;
