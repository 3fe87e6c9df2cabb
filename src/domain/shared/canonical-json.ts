import canonicalize from 'canonicalize';
import { sha256Hex } from './crypto.js';

/** RFC 8785 (JSON Canonicalization Scheme) bytes of a JSON value. */
export function canonicalBytes(value: unknown): Buffer {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('canonical JSON: the value has no JSON form');
  return Buffer.from(text, 'utf8');
}

/** `sha256:<hex>` of bytes: the form every hash in sealed metadata takes. */
export function sha256Tagged(bytes: string | Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}
