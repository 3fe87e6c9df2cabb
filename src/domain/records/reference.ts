import { randomCrockford } from '../shared/crypto.js';

/** Public reference of a record, e.g. AGR-7K3M-9QXD: short enough to read aloud, 40 bits of randomness. */
export function newRecordReference(): string {
  return `AGR-${randomCrockford(4)}-${randomCrockford(4)}`;
}

const REFERENCE_PATTERN = /^AGR-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

export function looksLikeReference(value: string): boolean {
  return REFERENCE_PATTERN.test(value.trim().toUpperCase());
}
