/**
 * The product's text rules, in the spec's numbers: the one normalization of record text and every
 * length and count limit. One definition for the domain's checks, the served OpenAPI document (request
 * and response schemas), the MCP tool schemas and the web UI's live counters. Plain data and pure
 * functions, so every layer (and the browser bundle) can import it.
 */
import { cleanUnicode } from './shared/unicode.js';

/**
 * The one normalization of record text, used for the body limits, for `body_hash` and for verifying
 * supplied text: Unicode NFC, invisible format characters removed (what a reader sees is what is
 * hashed and counted), every run of whitespace collapsed to one space, trimmed.
 */
export function normalizeText(text: string): string {
  return cleanUnicode(text).replace(/\s+/gu, ' ').trim();
}

/** Characters (code points) of a normalized text. */
export function countCharacters(normalized: string): number {
  return [...normalized].length;
}

/** Words (runs between single spaces) of a normalized text. */
export function countWords(normalized: string): number {
  return normalized === '' ? 0 : normalized.split(' ').length;
}

/**
 * Record text (bodies, counter-proposals, notarized text): the spec's limits count the normalized
 * text; the text is kept as sent (line breaks are the author's), so it is also capped as sent, and
 * that cap is what every response schema declares for it.
 */
export const BODY_LIMITS = { minCharacters: 10, maxCharacters: 7000, minWords: 2, maxWords: 350, maxRawCharacters: 28_000 } as const;

/** Every other limit, in characters as sent (code points) unless named otherwise. */
export const LIMITS = {
  title: 200,
  summary: 500,
  /** Decline reasons, amendment notes, rescission and cancellation reasons. */
  reason: 500,
  jurisdiction: 100,
  displayName: 50,
  contactPointValue: 320,
  /** Non-initiator parties of a record (15 signing participants with the initiator). */
  parties: 14,
  witnesses: 5,
  coNotarizers: 14,
  /** What a party originally wrote, when a counter-proposal was assisted. */
  counterRawInput: 7000,
  notarizationFilename: 255,
  notarizationMimeType: 255,
  notarizationLabel: 200,
  agentIdentifier: 120,
  lapseDays: { min: 1, max: 30 },
  /** Days between reminders, and before expiry for the last one (0: none). */
  reminderEveryDays: { min: 1, max: 30 },
  reminderBeforeExpiryDays: { min: 0, max: 30 },
  /** Distinct signature methods each signer completes. */
  signatureMethods: { min: 1, max: 3 },
  /** Entries per page of a listing. */
  pageSize: { min: 1, max: 100, default: 20 },
} as const;

/** Every whole number of a `{min, max}` range, for enumerations (1, 2, 3 methods). */
export function rangeOf(range: { readonly min: number; readonly max: number }): number[] {
  return Array.from({ length: range.max - range.min + 1 }, (_, index) => range.min + index);
}

/** The body rule in words, for schema descriptions and tool documentation. */
export const BODY_RULE =
  `${BODY_LIMITS.minCharacters}..${BODY_LIMITS.maxCharacters} characters and ${BODY_LIMITS.minWords}..${BODY_LIMITS.maxWords} words after normalization ` +
  `(Unicode NFC, invisible characters removed, whitespace runs collapsed to one space, trimmed), at most ${BODY_LIMITS.maxRawCharacters} characters as sent`;
