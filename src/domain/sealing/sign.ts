import { HttpTimestampAuthority, PDF, type DigestAlgorithm, type TimestampAuthority } from '@libpdf/core';
import type { SealKey } from './seal-key.js';

export interface SignSealedPdfOptions {
  reason: string;
  location?: string;
  signingTime: Date;
  /** RFC 3161 timestamp authorities, tried in order (SEAL_TSA_URL). */
  tsaUrls?: string[];
  /** How long one authority may take before the next is tried. */
  tsaTimeoutMs?: number;
}

export interface SignedPdf {
  bytes: Uint8Array;
  /** The PAdES level actually achieved: B-T only when an authority answered. */
  level: 'B-B' | 'B-T';
  /** The authority whose timestamp is in the signature, when level is B-T. */
  timestampUrl: string | null;
  /** Authorities that failed, with why (no secret travels in a TSA request or answer). */
  timestampFailures: { url: string; reason: string }[];
}

/**
 * The seal signature, the very last write to the file: PAdES (ETSI.CAdES.detached) with the service's
 * seal key. With timestamp authorities it tries each in turn for B-T and falls back to B-B when none
 * answers, reporting the level it reached.
 */
export async function signSealedPdf(pdf: Uint8Array, key: SealKey, options: SignSealedPdfOptions): Promise<SignedPdf> {
  const signer = await key.createSigner();
  const base = { signer, reason: options.reason, location: options.location, signingTime: options.signingTime, subFilter: 'ETSI.CAdES.detached' as const };
  const urls = options.tsaUrls?.filter(Boolean) ?? [];
  if (urls.length > 0) {
    const authority = new FailoverTimestampAuthority(urls, options.tsaTimeoutMs ?? 5000);
    try {
      const signed = await (await PDF.load(pdf)).sign({ ...base, level: 'B-T', timestampAuthority: authority });
      return { bytes: signed.bytes, level: 'B-T', timestampUrl: authority.answeredBy, timestampFailures: authority.failures };
    } catch (error) {
      if (!authority.exhausted) throw error;
      const signed = await (await PDF.load(pdf)).sign({ ...base, level: 'B-B' });
      return { bytes: signed.bytes, level: 'B-B', timestampUrl: null, timestampFailures: authority.failures };
    }
  }
  const signed = await (await PDF.load(pdf)).sign({ ...base, level: 'B-B' });
  return { bytes: signed.bytes, level: 'B-B', timestampUrl: null, timestampFailures: [] };
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
