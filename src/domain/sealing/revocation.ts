import type { RevocationProvider } from '@libpdf/core';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pkijsEngine, toArrayBuffer } from '../../../packages/verifier/src/pkijs-engine.js';

const AUTHORITY_INFO_ACCESS = '1.3.6.1.5.5.7.1.1';
const OCSP_METHOD = '1.3.6.1.5.5.7.48.1';
const CRL_DISTRIBUTION_POINTS = '2.5.29.31';
const URI = 6;
/** A CRL or an OCSP answer larger than this is not embedded (a CA's full CRL can run to megabytes). */
const MAX_BYTES = 4 * 1024 * 1024;


function extension(certificate: pkijs.Certificate, id: string): asn1js.AsnType | null {
  const found = certificate.extensions?.find((e) => e.extnID === id);
  if (!found) return null;
  const parsed = asn1js.fromBER(toArrayBuffer(new Uint8Array(found.extnValue.valueBlock.valueHexView)));
  return parsed.offset === -1 ? null : parsed.result;
}

function httpUrls(names: pkijs.GeneralName[]): string[] {
  return names.filter((name) => name.type === URI && typeof name.value === 'string' && /^https?:\/\//i.test(name.value)).map((name) => name.value as string);
}

/** The OCSP responder URLs a certificate names (Authority Information Access). */
function ocspUrls(certificate: pkijs.Certificate): string[] {
  const schema = extension(certificate, AUTHORITY_INFO_ACCESS);
  if (!schema) return [];
  const access = new pkijs.InfoAccess({ schema });
  return httpUrls(access.accessDescriptions.filter((d) => d.accessMethod === OCSP_METHOD).map((d) => d.accessLocation));
}

/** The CRL distribution point URLs a certificate names. */
function crlUrls(certificate: pkijs.Certificate): string[] {
  const schema = extension(certificate, CRL_DISTRIBUTION_POINTS);
  if (!schema) return [];
  const points = new pkijs.CRLDistributionPoints({ schema });
  return httpUrls(points.distributionPoints.flatMap((point) => (Array.isArray(point.distributionPoint) ? point.distributionPoint : [])));
}

/**
 * Revocation data for the long-term validation of a seal (B-LT): the OCSP answer of the
 * certificate's responder, else its CRL, fetched with a deadline covering the whole exchange. The
 * library's own provider writes its failures to the console and waits up to 15 s per request; this one
 * records them (`failures`, never more than the URL and why) for the seal's log, and a certificate
 * that names where its revocation status lives but none of them answers makes the seal's level
 * honest: the library then warns REVOCATION_UNAVAILABLE.
 */
export class SealRevocationProvider implements RevocationProvider {
  readonly failures: { url: string; reason: string }[] = [];

  constructor(private readonly timeoutMs: number) {}

  async getOCSP(cert: Uint8Array, issuer: Uint8Array): Promise<Uint8Array | null> {
    const certificate = pkijs.Certificate.fromBER(toArrayBuffer(cert));
    for (const url of ocspUrls(certificate)) {
      try {
        const request = new pkijs.OCSPRequest();
        await request.createForCertificate(certificate, { hashAlgorithm: 'SHA-1', issuerCertificate: pkijs.Certificate.fromBER(toArrayBuffer(issuer)) }, pkijsEngine());
        const answer = await this.fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/ocsp-request' }, body: new Uint8Array(request.toSchema(true).toBER(false)) });
        const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(answer));
        const status = response.responseStatus.valueBlock.valueDec;
        if (status !== 0) throw new Error(`the responder answered status ${status}`);
        return answer;
      } catch (error) {
        this.failures.push({ url, reason: reasonOf(error) });
      }
    }
    // No responder answered: the CRL is asked next (getCRL).
    return null;
  }

  async getCRL(cert: Uint8Array): Promise<Uint8Array | null> {
    const urls = crlUrls(pkijs.Certificate.fromBER(toArrayBuffer(cert)));
    for (const url of urls) {
      try {
        const crl = await this.fetch(url, { method: 'GET' });
        pkijs.CertificateRevocationList.fromBER(toArrayBuffer(crl));
        return crl;
      } catch (error) {
        this.failures.push({ url, reason: reasonOf(error) });
      }
    }
    if (urls.length > 0) throw new Error('no CRL distribution point answered');
    return null;
  }

  private async fetch(url: string, init: RequestInit): Promise<Uint8Array> {
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(this.timeoutMs) });
    if (!response.ok) throw new Error(`answered ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_BYTES) throw new Error(`answer of ${declared} bytes is too large`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > MAX_BYTES) throw new Error(`answer of ${bytes.byteLength} bytes is too large`);
    return bytes;
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? (error.name === 'TimeoutError' ? 'no answer in time' : error.message) : String(error);
}
