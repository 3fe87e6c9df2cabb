/**
 * The service's own text rules (src/domain/text-rules.ts), imported rather than copied: what the
 * page counts as people type is what the service will count, invisible characters included.
 */
import { BODY_LIMITS, LIMITS as SERVICE_LIMITS, countCharacters as countNormalized, countWords as countNormalizedWords, normalizeText, rangeOf } from '../../../src/domain/text-rules.js';

export { normalizeText, rangeOf };

/** Characters of a text after the service's normalization. */
export function countCharacters(text: string): number {
  return countNormalized(normalizeText(text));
}

/** Words of a text after the service's normalization. */
export function countWords(text: string): number {
  return countNormalizedWords(normalizeText(text));
}

/** The limits of the interface specification, shown as people type. */
export const LIMITS = { ...SERVICE_LIMITS, body: BODY_LIMITS, label: SERVICE_LIMITS.notarizationLabel } as const;
