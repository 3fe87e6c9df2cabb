import { createHash } from 'node:crypto';
import { HttpTimestampAuthority, PDF, type DigestAlgorithm, type SignOptions, type Signer, type TimestampAuthority } from '@libpdf/core';
import { archiveExpiry, inspectPades } from '../../../packages/verifier/src/pades.js';
import { certifyNextSignature } from './libpdf-patch.js';
import { SealCms } from './seal-cms.js';
import { SealRevocationProvider } from './revocation.js';
import type { SealKey } from './seal-key.js';

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export interface SignSealedPdfOptions {
  reason: string;
  location?: string;
  signingTime: Date;
  /** RFC 3161 timestamp authorities, tried in order (SEAL_TSA_URLS). */
  tsaUrls?: string[];
  /** How long one authority (or one OCSP responder or CRL distribution point) may take before the next is tried. */
  tsaTimeoutMs?: number;
}

export interface SignedPdf {
  bytes: Uint8Array;
  /**
   * The PAdES level reached: B-B without an authority; B-T when one timestamped the signature; B-LTA
   * when the DSS also holds the validation data of both chains and a document timestamp covers it all
   * (B-LT when the document timestamp failed; B-T when some revocation data could not be fetched).
   */
  level: PadesLevel;
  /** The authority whose timestamp is in the signature, when there is one. */
  timestampUrl: string | null;
  /** The authority whose document timestamp closes the file (B-LTA). */
  documentTimestampUrl: string | null;
  /** Authorities that failed, with why (no secret travels in a TSA request or answer). */
  timestampFailures: { url: string; reason: string }[];
  /** Why the validation data is incomplete: revocation sources that failed, chains that could not be built. */
  validationWarnings: string[];
  /** With a document timestamp: when its authority's certificate chain expires (the archive is renewed before). */
  archiveExpiresAt: Date | null;
}

/** Room for the seal's CMS: its certificate chain and the signature timestamp token with the authority's chain. */
const SIGNATURE_SIZE = 24_576;
/** Room for a document timestamp token (the authority's chain included). */
const DOCUMENT_TIMESTAMP_SIZE = 16_384;

/** Library warnings that mean the DSS lacks some certificate or revocation data (MDP_VIOLATION concerns none). */
const INCOMPLETE_VALIDATION = new Set(['REVOCATION_UNAVAILABLE', 'CHAIN_INCOMPLETE', 'TSA_CHAIN_INCOMPLETE', 'TSA_CERT_EXTRACTION_FAILED', 'NO_SIGNER_CERT', 'LTV_GATHER_FAILED', 'DOC_TS_NO_CERTS', 'DOC_TS_LTV_FAILED']);

/**
 * The seal certifies the document (DocMDP): a viewer warns of any change after it. Permission 2
 * (form filling and signing) lets renewal append what PAdES needs later, validation data (DSS) and
 * document timestamps, which are signatures; record-verify refuses anything else that follows.
 */
const SEAL_PERMISSIONS = 2;

/**
 * The seal signature, the last write to the file's content: a PAdES certification signature
 * (ETSI.CAdES.detached, DocMDP) with the service's seal key, with no signing-time attribute (PAdES
 * baseline takes the claimed time from the signature dictionary's /M). With timestamp authorities
 * it reaches B-LTA in three incremental revisions: the signature with its timestamp, a DSS with the
 * certificates and revocation data of the seal's and the authority's chains, and a document
 * timestamp over all of it, so the last signature in the file covers every byte. It falls back to
 * B-B when no authority answers, and to B-T when revocation data is missing, and reports the level
 * reached with what was missing (a degraded seal, finished later by `finishDegradedSeal`).
 */
export async function signSealedPdf(pdf: Uint8Array, key: SealKey, options: SignSealedPdfOptions): Promise<SignedPdf> {
  const signer = await key.createSigner();
  const urls = options.tsaUrls?.filter(Boolean) ?? [];
  const timeoutMs = options.tsaTimeoutMs ?? 5000;
  const document = await PDF.load(pdf);
  await certifyNextSignature(document, SEAL_PERMISSIONS);
  const placed = await placeSignature(document, { reason: options.reason, location: options.location, signingTime: options.signingTime, subFilter: 'ETSI.CAdES.detached', estimatedSize: SIGNATURE_SIZE, level: 'B-B' });
  const authority = urls.length > 0 ? new FailoverTimestampAuthority(urls, timeoutMs) : null;
  const sealed = await completeSealCms(placed, signer, authority);
  if (!authority?.answeredBy) {
    return { bytes: sealed, level: 'B-B', timestampUrl: null, documentTimestampUrl: null, timestampFailures: authority?.failures ?? [], validationWarnings: [], archiveExpiresAt: null };
  }
  const timestampUrl = authority.answeredBy;
  const revocation = new SealRevocationProvider(timeoutMs);
  const validated = await (await PDF.load(sealed)).addValidationData({ revocationProvider: revocation });
  // The authority that just answered is asked first: the ones that failed a moment ago most likely fail again.
  const stamped = await addDocumentTimestamp(validated.bytes, [timestampUrl, ...urls.filter((url) => url !== timestampUrl)], timeoutMs);
  const warnings = [...validated.warnings.filter((w) => INCOMPLETE_VALIDATION.has(w.code)).map((w) => w.message), ...revocation.failures.map((f) => `${f.url}: ${f.reason}`)];
  const complete = !validated.warnings.some((w) => INCOMPLETE_VALIDATION.has(w.code));
  return {
    bytes: stamped.bytes ?? validated.bytes,
    archiveExpiresAt: stamped.bytes ? await archiveExpiry(stamped.bytes) : null,
    level: !complete ? 'B-T' : stamped.bytes ? 'B-LTA' : 'B-LT',
    timestampUrl,
    documentTimestampUrl: stamped.url,
    timestampFailures: [...authority.failures, ...stamped.failures],
    validationWarnings: warnings,
  };
}

/** What the placeholder signer throws when @libpdf/core first asks for its certificate: the signature is placed by then. */
const SIGNATURE_PLACED = new Error('the seal signature is placed');

/**
 * What @libpdf/core signs with: a signer that stops the library as soon as the library asks for its
 * certificate. By then `sign()` has written the signature's incremental revision (its dictionary,
 * field, AcroForm and the /Perms of `certifyNextSignature`, with a /Contents hole of zeros) and
 * patched its byte range; what it would do next, and the seal does not need, is build a CMS of its
 * own (the certificate parsed, signed attributes and DER encoded, some 4 ms a seal), write it into
 * the hole `completeSealCms` overwrites whole, and parse the file again to return it (2.6 ms).
 */
const placeholderSigner: Signer = {
  get certificate(): Uint8Array {
    throw SIGNATURE_PLACED;
  },
  keyType: 'RSA',
  signatureAlgorithm: 'RSASSA-PKCS1-v1_5',
  sign: () => Promise.reject(SIGNATURE_PLACED),
};

/**
 * The file with the seal's signature placed by @libpdf/core (`placeholderSigner`), its /Contents
 * still zeros: the bytes `sign()` saved and then gave their byte range, taken from the document's
 * `save` as it returns them. The document is not used afterwards (its objects are not reloaded).
 */
async function placeSignature(document: PDF, options: Omit<SignOptions, 'signer'>): Promise<Uint8Array> {
  let saved: Uint8Array | undefined;
  const save = document.save.bind(document);
  document.save = async (saveOptions) => (saved = await save(saveOptions));
  try {
    await document.sign({ ...options, signer: placeholderSigner });
  } catch (error) {
    if (error !== SIGNATURE_PLACED) throw error;
    if (saved) return saved;
  } finally {
    document.save = save;
  }
  // A version of the library that asks for the certificate before it saves, or never asks, fails every seal here
  // (and one that writes something else after saving fails `lastByteRange`).
  throw new Error('@libpdf/core did not save the signed revision before asking for the signer certificate');
}

/**
 * The seal's CMS as PAdES baseline wants it (SealCms: @libpdf/core's CAdES attributes less its
 * signing-time, signed with the seal key), over the byte range the library placed, with a signature
 * timestamp from the first authority that answers. The CMS goes into the same /Contents hole, so no
 * other byte of the file moves.
 */
async function completeSealCms(bytes: Uint8Array, signer: Signer, authority: FailoverTimestampAuthority | null): Promise<Uint8Array> {
  const [, before, after, rest] = lastByteRange(bytes);
  const digest = createHash('sha256').update(bytes.subarray(0, before)).update(bytes.subarray(after, after + rest)).digest();
  const timestamp = authority
    ? async (signatureDigest: Uint8Array) => {
        try {
          return await authority.timestamp(signatureDigest, 'SHA-256');
        } catch (error) {
          if (!authority.exhausted) throw error;
          return null;
        }
      }
    : undefined;
  const der = await SealCms.of(signer).sign(digest, timestamp);
  const hole = after - before - 2;
  const hex = Buffer.from(der).toString('hex');
  if (hex.length > hole) throw new Error(`the seal's CMS (${der.length} bytes) does not fit its /Contents (${hole / 2} bytes)`);
  bytes.set(Buffer.from(hex.padEnd(hole, '0'), 'latin1'), before + 1);
  return bytes;
}

const BYTE_RANGE = Buffer.from('/ByteRange');

/** The byte range of the file's last signature dictionary (the one just placed: the library writes it last). */
function lastByteRange(bytes: Uint8Array): [number, number, number, number] {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = file.lastIndexOf(BYTE_RANGE);
  const close = at === -1 ? -1 : file.indexOf(0x5d, at);
  const range = close === -1 ? [] : file.toString('latin1', at + BYTE_RANGE.length, close).replace('[', ' ').trim().split(/\s+/).map(Number);
  if (range.length !== 4 || !range.every(Number.isSafeInteger) || file[range[1]!] !== 0x3c || file[range[2]! - 1] !== 0x3e || range[2]! + range[3]! !== file.length) {
    throw new Error('the signed PDF has no signature byte range');
  }
  return range as [number, number, number, number];
}

export interface RenewedPdf {
  bytes: Uint8Array;
  /** The authority whose new document timestamp closes the file. */
  documentTimestampUrl: string;
  timestampFailures: { url: string; reason: string }[];
  validationWarnings: string[];
  /** When the new timestamp's authority chain expires: the next renewal is due before then. */
  archiveExpiresAt: Date | null;
}

/**
 * Renews a B-LTA file's archive timestamp, before the newest timestamp's certificate expires: a DSS
 * update with fresh validation data for every signature and timestamp in the file (the newest
 * timestamp's chain included), then a new document timestamp over all of it. Both are incremental
 * revisions: every earlier byte stays as it was, so each earlier version keeps its hash and its
 * signatures. Throws when no authority answers (the file is then unchanged).
 */
export async function renewArchiveTimestamp(pdf: Uint8Array, options: { tsaUrls: string[]; tsaTimeoutMs?: number }): Promise<RenewedPdf> {
  const timeoutMs = options.tsaTimeoutMs ?? 5000;
  const revocation = new SealRevocationProvider(timeoutMs);
  const validated = await (await PDF.load(pdf)).addValidationData({ revocationProvider: revocation });
  const stamped = await addDocumentTimestamp(validated.bytes, options.tsaUrls, timeoutMs);
  if (!stamped.bytes || !stamped.url) throw new Error(`No timestamp authority answered (${stamped.failures.map((f) => `${f.url}: ${f.reason}`).join('; ')}).`);
  return {
    bytes: stamped.bytes,
    archiveExpiresAt: await archiveExpiry(stamped.bytes),
    documentTimestampUrl: stamped.url,
    timestampFailures: stamped.failures,
    validationWarnings: [...validated.warnings.filter((w) => INCOMPLETE_VALIDATION.has(w.code)).map((w) => w.message), ...revocation.failures.map((f) => `${f.url}: ${f.reason}`)],
  };
}

export interface CompletedPdf extends RenewedPdf {
  /** The level the completed file reaches, as record-verify reads it. */
  level: PadesLevel;
}

/**
 * Completes a degraded seal, one made while its authorities were down: a B-B file first gets a
 * document timestamp over its signature (PAdES B-T by a document timestamp), then, as a renewal
 * does, a DSS update with the validation data of every signature and timestamp in the file and a
 * document timestamp over it all (B-LTA when the revocation servers answered). Every step is an
 * incremental revision: the earlier bytes, and so the earlier version's hash, stay as they were.
 * Throws when no authority answers (the file is then unchanged).
 */
export async function completeDegradedSeal(pdf: Uint8Array, options: { tsaUrls: string[]; tsaTimeoutMs?: number }): Promise<CompletedPdf> {
  let bytes = pdf;
  const failures: { url: string; reason: string }[] = [];
  if ((await inspectPades(pdf)).level === 'B-B') {
    const stamped = await addDocumentTimestamp(pdf, options.tsaUrls, options.tsaTimeoutMs ?? 5000);
    if (!stamped.bytes) throw new Error(`No timestamp authority answered (${stamped.failures.map((f) => `${f.url}: ${f.reason}`).join('; ')}).`);
    bytes = stamped.bytes;
    failures.push(...stamped.failures);
  }
  const renewed = await renewArchiveTimestamp(bytes, options);
  const level = (await inspectPades(renewed.bytes)).level ?? 'B-B';
  return { ...renewed, timestampFailures: [...failures, ...renewed.timestampFailures], level };
}

/** A document timestamp (ETSI.RFC3161) over the whole file, from the first authority that answers. */
async function addDocumentTimestamp(pdf: Uint8Array, urls: string[], timeoutMs: number): Promise<{ bytes: Uint8Array | null; url: string | null; failures: { url: string; reason: string }[] }> {
  const authority = new FailoverTimestampAuthority(urls, timeoutMs);
  try {
    const { bytes } = await (await PDF.load(pdf)).addTimestamp({ timestampAuthority: authority, estimatedSize: DOCUMENT_TIMESTAMP_SIZE });
    return { bytes, url: authority.answeredBy, failures: authority.failures };
  } catch (error) {
    if (!authority.exhausted) throw error;
    return { bytes: null, url: null, failures: authority.failures };
  }
}

/** One authority after another: a refusal, an error or a timeout moves on to the next. */
class FailoverTimestampAuthority implements TimestampAuthority {
  answeredBy: string | null = null;
  readonly failures: { url: string; reason: string }[] = [];

  constructor(
    private readonly urls: string[],
    private readonly timeoutMs: number,
  ) {}

  /** The library's own timeout stops at the response headers: this deadline also covers the body. */
  private readonly deadlineFetch: typeof fetch = (input, init) =>
    fetch(input, { ...init, signal: AbortSignal.any([...(init?.signal ? [init.signal] : []), AbortSignal.timeout(this.timeoutMs)]) });

  get exhausted(): boolean {
    return this.answeredBy === null && this.failures.length >= this.urls.length;
  }

  async timestamp(digest: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
    for (const url of this.urls) {
      try {
        const token = await new HttpTimestampAuthority(url, { timeout: this.timeoutMs, fetch: this.deadlineFetch }).timestamp(digest, algorithm);
        this.answeredBy = url;
        return token;
      } catch (error) {
        this.failures.push({ url, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    throw new Error(`No timestamp authority answered (${this.urls.length} tried).`);
  }
}
