import { HttpTimestampAuthority, PDF, type DigestAlgorithm, type Signer, type TimestampAuthority } from '@libpdf/core';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { archiveExpiry, findSignatures, inspectPades } from '../../../packages/verifier/src/pades.js';
import { toArrayBuffer } from '../../../packages/verifier/src/pkijs-engine.js';
import { certifyNextSignature } from './libpdf-patch.js';
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
  const placed = await document.sign({ signer, reason: options.reason, location: options.location, signingTime: options.signingTime, subFilter: 'ETSI.CAdES.detached', estimatedSize: SIGNATURE_SIZE, level: 'B-B' });
  const authority = urls.length > 0 ? new FailoverTimestampAuthority(urls, timeoutMs) : null;
  const sealed = await completeSealCms(placed.bytes, signer, authority);
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

const SIGNING_TIME = '1.2.840.113549.1.9.5';
const SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';

/**
 * The seal's CMS as PAdES baseline wants it. @libpdf/core always writes a signing-time signed
 * attribute; it is dropped, the remaining signed attributes signed again with the seal key (the
 * document digest they carry is unchanged: /Contents is outside the byte range), then the first
 * authority that answers timestamps the new signature value. The CMS goes back into the same
 * /Contents hole, so no other byte of the file moves.
 */
async function completeSealCms(bytes: Uint8Array, signer: Signer, authority: FailoverTimestampAuthority | null): Promise<Uint8Array> {
  const seal = findSignatures(bytes).find((s) => s.kind === 'signature');
  if (!seal) throw new Error('the signed PDF has no signature');
  const content = pkijs.ContentInfo.fromBER(toArrayBuffer(seal.contents));
  const signedData = new pkijs.SignedData({ schema: content.content });
  const signerInfo = signedData.signerInfos[0]!;
  const attributes = signerInfo.signedAttrs!.attributes.filter((a) => a.type !== SIGNING_TIME);
  signerInfo.signedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes });
  const toSign = new Uint8Array(new asn1js.Set({ value: attributes.map((a) => a.toSchema()) }).toBER(false));
  const signature = await signer.sign(toSign, 'SHA-256');
  signerInfo.signature = new asn1js.OctetString({ valueHex: toArrayBuffer(signature) });
  if (authority) {
    try {
      const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', toArrayBuffer(signature)));
      const token = asn1js.fromBER(toArrayBuffer(await authority.timestamp(digest, 'SHA-256')));
      signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: [new pkijs.Attribute({ type: SIGNATURE_TIMESTAMP, values: [token.result] })] });
    } catch (error) {
      if (!authority.exhausted) throw error;
    }
  }
  const der = new Uint8Array(new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) }).toSchema().toBER(false));
  const hole = seal.byteRange[2] - seal.byteRange[1] - 2;
  const hex = Buffer.from(der).toString('hex');
  if (hex.length > hole) throw new Error(`the seal's CMS (${der.length} bytes) does not fit its /Contents (${hole / 2} bytes)`);
  const out = Uint8Array.from(bytes);
  out.set(new TextEncoder().encode(hex.padEnd(hole, '0')), seal.byteRange[1] + 1);
  return out;
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
