import { HttpTimestampAuthority, PDF, type DigestAlgorithm, type SignWarning, type TimestampAuthority } from '@libpdf/core';
import { archiveExpiry } from '../../verifier/pades.js';
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
 * The seal signature, the last write to the file's content: PAdES (ETSI.CAdES.detached) with the
 * service's seal key. With timestamp authorities it reaches B-LTA in three incremental revisions: the
 * signature with its timestamp, a DSS with the certificates and revocation data of the seal's and the
 * authority's chains, and a document timestamp over all of it, so the last signature in the file
 * covers every byte. It falls back to B-B when no authority answers, and reports the level reached.
 */
export async function signSealedPdf(pdf: Uint8Array, key: SealKey, options: SignSealedPdfOptions): Promise<SignedPdf> {
  const signer = await key.createSigner();
  const base = { signer, reason: options.reason, location: options.location, signingTime: options.signingTime, subFilter: 'ETSI.CAdES.detached' as const, estimatedSize: SIGNATURE_SIZE };
  const urls = options.tsaUrls?.filter(Boolean) ?? [];
  const timeoutMs = options.tsaTimeoutMs ?? 5000;
  const basic = async (failures: SignedPdf['timestampFailures']): Promise<SignedPdf> => {
    const signed = await (await PDF.load(pdf)).sign({ ...base, level: 'B-B' });
    return { bytes: signed.bytes, level: 'B-B', timestampUrl: null, documentTimestampUrl: null, timestampFailures: failures, validationWarnings: [], archiveExpiresAt: null };
  };
  if (urls.length === 0) return basic([]);

  const authority = new FailoverTimestampAuthority(urls, timeoutMs);
  const revocation = new SealRevocationProvider(timeoutMs);
  let signed: { bytes: Uint8Array; warnings: SignWarning[] };
  try {
    signed = await (await PDF.load(pdf)).sign({ ...base, level: 'B-LT', timestampAuthority: authority, revocationProvider: revocation });
  } catch (error) {
    if (!authority.exhausted) throw error;
    return basic(authority.failures);
  }
  const timestampUrl = authority.answeredBy;
  // The authority that just answered is asked first: the ones that failed a moment ago most likely fail again.
  const stamped = await addDocumentTimestamp(signed.bytes, timestampUrl ? [timestampUrl, ...urls.filter((url) => url !== timestampUrl)] : urls, timeoutMs);
  const warnings = [...signed.warnings.filter((w) => INCOMPLETE_VALIDATION.has(w.code)).map((w) => w.message), ...revocation.failures.map((f) => `${f.url}: ${f.reason}`)];
  const complete = !signed.warnings.some((w) => INCOMPLETE_VALIDATION.has(w.code));
  return {
    bytes: stamped.bytes ?? signed.bytes,
    archiveExpiresAt: stamped.bytes ? await archiveExpiry(stamped.bytes) : null,
    level: !complete ? 'B-T' : stamped.bytes ? 'B-LTA' : 'B-LT',
    timestampUrl,
    documentTimestampUrl: stamped.url,
    timestampFailures: [...authority.failures, ...stamped.failures],
    validationWarnings: warnings,
  };
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
