import { PDF } from '@libpdf/core';
import canonicalizeModule from 'canonicalize';
import { sha256 } from 'ox/Hash';

/**
 * The sealed metadata as a verifier sees it: the exact bytes of sealed-metadata.json (embedded in the
 * sealed PDF, or the public document of a notarization), whose SHA-256 is the record's metadata_hash,
 * the value anchored on the chain. The fields read here are optional hints:
 * - anchor: { network, chain_id, registry_address } where the service anchored it;
 * - seal.certificate_sha256: the fingerprint of the seal certificate that must have signed the PDF;
 * - content_hash (anywhere, e.g. notarization.content_hash): a notarized file's SHA-256.
 */
export const METADATA_ATTACHMENT = 'sealed-metadata.json';

export type SealedMetadata = {
  bytes: Uint8Array;
  /** 'sha256:<hex>' of the exact bytes. */
  metadataHash: string;
  /** The bytes are RFC 8785 canonical JSON (so the hash is reproducible from the content). */
  canonical: boolean;
  json: unknown;
  anchor: { network?: string; chainId?: number; registryAddress?: string } | null;
  sealCertificateSha256: string | null;
  /** Every content_hash value in the document, normalized to lower-case hex, with its path. */
  contentHashes: { path: string; hex: string }[];
};

// The package is CommonJS with an `export default` declaration: Node hands over the function itself.
type Canonicalize = (input: unknown) => string | undefined;
const loaded: unknown = canonicalizeModule;
const canonicalizeFn = (typeof loaded === 'function' ? loaded : (loaded as { default: unknown }).default) as Canonicalize;

/** RFC 8785 (JCS) canonical JSON text of a value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('the value has no JSON form');
  return text;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** 'sha256:<hex>' of bytes, the same in Node and in a browser (ox: no node:crypto, synchronous). */
export function sha256Tag(bytes: Uint8Array): string {
  return `sha256:${sha256(bytes, { as: 'Hex' }).slice(2)}`;
}

/** A content hash ('sha256:<hex>' or bare hex) as lower-case hex, or null. */
export function normalizeSha256(value: string): string | null {
  const hex = value.trim().replace(/^sha256:/i, '').toLowerCase();
  return /^[0-9a-f]{64}$/.test(hex) ? hex : null;
}

function findContentHashes(value: unknown, path: string, out: { path: string; hex: string }[]): void {
  if (Array.isArray(value)) value.forEach((item, i) => findContentHashes(item, `${path}[${i}]`, out));
  if (!isObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (key === 'content_hash' && typeof child === 'string') {
      const hex = normalizeSha256(child);
      if (hex) out.push({ path: childPath, hex });
    } else {
      findContentHashes(child, childPath, out);
    }
  }
}

/** Reads sealed-metadata bytes; throws with a clear message when they are not JSON. */
export function readSealedMetadata(bytes: Uint8Array): SealedMetadata {
  const text = new TextDecoder().decode(bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${METADATA_ATTACHMENT} is not JSON`);
  }
  const anchor = isObject(json) && isObject(json.anchor) ? json.anchor : null;
  const seal = isObject(json) && isObject(json.seal) ? json.seal : null;
  const contentHashes: { path: string; hex: string }[] = [];
  findContentHashes(json, '', contentHashes);
  return {
    bytes,
    metadataHash: sha256Tag(bytes),
    canonical: canonicalJson(json) === text,
    json,
    anchor: anchor
      ? {
          network: typeof anchor.network === 'string' ? anchor.network : undefined,
          chainId: typeof anchor.chain_id === 'number' ? anchor.chain_id : typeof anchor.chain_id === 'string' ? Number(anchor.chain_id) : undefined,
          registryAddress: typeof anchor.registry_address === 'string' ? anchor.registry_address : undefined,
        }
      : null,
    sealCertificateSha256: typeof seal?.certificate_sha256 === 'string' ? (normalizeSha256(seal.certificate_sha256) ?? seal.certificate_sha256) : null,
    contentHashes,
  };
}

/** The bytes of the PDF's embedded sealed-metadata.json (a file attachment), or null. */
export async function extractMetadataAttachment(pdf: Uint8Array): Promise<Uint8Array | null> {
  const document = await PDF.load(pdf);
  return document.attachments.get(METADATA_ATTACHMENT);
}
