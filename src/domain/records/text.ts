import { sha256Hex } from '../shared/crypto.js';
import { normalizeText } from '../text-rules.js';

/** `sha256:<hex>` of the UTF-8 bytes of the normalized text. */
export function textHash(text: string): string {
  return `sha256:${sha256Hex(normalizeText(text))}`;
}
