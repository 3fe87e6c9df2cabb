/**
 * Unicode hygiene, one place for every transport: what a field keeps is what a reader sees.
 * Each kind of field gets one normalization (NFC, invisible format characters removed), then its
 * own refusals: control characters anywhere (PostgreSQL cannot even store NUL), bidirectional
 * overrides in names and single-line fields (they make text read differently than it is stored).
 */

import type { IssueCollector } from './errors.js';

/** Zero-width and other invisible format characters: removed, they change nothing a reader sees. */
const INVISIBLE = /[\u00ad\u180e\u200b\u2060-\u2064\ufeff]/gu;
/** Embeddings, overrides and isolates: they reorder what is displayed. */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;
/** Control characters other than whitespace (NUL, BEL, ESC, DEL, C1 controls). */
const CONTROL = /(?![\t\n\v\f\r\u0085])\p{Cc}/u;
/** Anything invisible or unassigned, for values that must be exact (addresses, handles, references). */
const NOT_PRINTABLE = /[\s\p{C}]/u;

export type TextIssue = { message: string; type: 'control_character' | 'bidi_control' };

/** NFC, invisible format characters removed. */
export function cleanUnicode(value: string): string {
  return value.normalize('NFC').replace(INVISIBLE, '');
}

/** The refusal for free text (bodies, notes, reasons): control characters only. */
export function textIssue(value: string): TextIssue | null {
  return CONTROL.test(value) ? { message: 'Control characters are not allowed', type: 'control_character' } : null;
}

/** The refusal for names and single-line fields (titles, summaries): control characters and bidi overrides. */
export function lineIssue(value: string): TextIssue | null {
  if (BIDI_CONTROL.test(value)) return { message: 'Bidirectional override characters are not allowed', type: 'bidi_control' };
  return textIssue(value);
}

/** Whether an exact value (address, handle, reference) holds only printable, visible characters. */
export function isPrintable(value: string): boolean {
  return !NOT_PRINTABLE.test(value);
}

/** Cleans an optional single-line field (NFC, invisible characters removed, trimmed); empty becomes null. */
export function optionalLine(issues: IssueCollector, value: string | null | undefined, field: string, max: number): string | null {
  if (value == null) return null;
  const cleaned = cleanUnicode(value).trim();
  // Counted as sent (REST's contract counts the same way) and as stored: NFC makes some characters two
  // (U+0958 is U+0915 U+093C), and every answer's schema declares the limit for what is stored.
  if ([...value].length > max || [...cleaned].length > max) issues.add([field], `At most ${max} characters (as sent and as stored, in Unicode NFC)`, 'too_long');
  const problem = lineIssue(value);
  if (problem) issues.add([field], problem.message, problem.type);
  return cleaned === '' ? null : cleaned;
}
