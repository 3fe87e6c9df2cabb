import { sha256Hex } from '../shared/crypto.js';
import { cleanUnicode } from '../shared/unicode.js';

/**
 * The one normalization of record text, used for the body limits, for `body_hash` and (later) for
 * verifying supplied text: Unicode NFC, invisible format characters removed (what a reader sees is
 * what is hashed and counted), every run of whitespace collapsed to one space, trimmed.
 */
export function normalizeText(text: string): string {
  return cleanUnicode(text).replace(/\s+/gu, ' ').trim();
}

export function countCharacters(normalized: string): number {
  return [...normalized].length;
}

export function countWords(normalized: string): number {
  return normalized === '' ? 0 : normalized.split(' ').length;
}

/** `sha256:<hex>` of the UTF-8 bytes of the normalized text. */
export function textHash(text: string): string {
  return `sha256:${sha256Hex(normalizeText(text))}`;
}

export const BODY_LIMITS = { minCharacters: 10, maxCharacters: 7000, minWords: 2, maxWords: 350 } as const;
