import { createHash, webcrypto } from 'node:crypto';
import * as pkijs from 'pkijs';

/**
 * The PDF's PAdES signature, checked cryptographically with nothing but the file: the last signature
 * dictionary's /ByteRange must cover the whole file except its /Contents hole, the CMS SignedData in
 * that hole must carry a messageDigest equal to the digest of the byte range, and its signature over
 * the signed attributes must verify with the signer certificate's key. Trust in the certificate itself
 * is a separate question: the caller pins the seal key by its SHA-256 fingerprint.
 */
export type SignerCertificate = { fingerprint: string; subject: string };

export type SignatureCheck =
  | { ok: true; signer: SignerCertificate; digestAlgorithm: string; byteRange: [number, number, number, number] }
  | { ok: false; reason: string; signer?: SignerCertificate };

const DIGESTS: Record<string, { node: string; label: string }> = {
  '2.16.840.1.101.3.4.2.1': { node: 'sha256', label: 'SHA-256' },
  '2.16.840.1.101.3.4.2.2': { node: 'sha384', label: 'SHA-384' },
  '2.16.840.1.101.3.4.2.3': { node: 'sha512', label: 'SHA-512' },
};
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const NAME_LABELS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '1.2.840.113549.1.9.1': 'E',
};

let engineReady = false;
function useNodeCrypto(): void {
  if (engineReady) return;
  pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto }));
  engineReady = true;
}

/** The last /ByteRange [a b c d] of the file, or null. */
export function lastByteRange(pdf: Uint8Array): [number, number, number, number] | null {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const matches = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)];
  const last = matches.at(-1);
  if (!last) return null;
  return [Number(last[1]), Number(last[2]), Number(last[3]), Number(last[4])];
}

function describeName(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((tv) => {
      const value = (tv.value as { valueBlock?: { value?: unknown } }).valueBlock?.value;
      return `${NAME_LABELS[tv.type] ?? tv.type}=${typeof value === 'string' ? value : '?'}`;
    })
    .join(', ');
}

function describeCertificate(certificate: pkijs.Certificate): SignerCertificate {
  const der = certificate.toSchema(true).toBER(false);
  return { fingerprint: createHash('sha256').update(Buffer.from(der)).digest('hex'), subject: describeName(certificate.subject) };
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

export async function verifyPadesSignature(pdf: Uint8Array): Promise<SignatureCheck> {
  const range = lastByteRange(pdf);
  if (!range) return { ok: false, reason: 'the PDF has no signature (/ByteRange not found)' };
  const [start, firstLength, secondStart, secondLength] = range;
  if (start !== 0 || firstLength <= 0 || secondStart <= firstLength || secondStart + secondLength !== pdf.length) {
    return {
      ok: false,
      reason: `the signature does not cover the whole file (ByteRange [${range.join(' ')}], file length ${pdf.length}): bytes were added or removed`,
    };
  }
  const hole = Buffer.from(pdf.subarray(firstLength, secondStart)).toString('latin1');
  if (!/^<[0-9a-fA-F\s]*>$/.test(hole)) return { ok: false, reason: 'the signature contents hole is not a hex string' };
  const cmsBytes = Buffer.from(hole.slice(1, -1).replace(/\s+/g, ''), 'hex');

  let signedData: pkijs.SignedData;
  try {
    const content = pkijs.ContentInfo.fromBER(toArrayBuffer(cmsBytes));
    if (content.contentType !== pkijs.ContentInfo.SIGNED_DATA) throw new Error('not a CMS SignedData');
    signedData = new pkijs.SignedData({ schema: content.content });
  } catch (error) {
    return { ok: false, reason: `the signature is not a readable CMS SignedData (${(error as Error).message})` };
  }
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) return { ok: false, reason: 'the signature has no signer' };
  const digest = DIGESTS[signerInfo.digestAlgorithm.algorithmId];
  if (!digest) return { ok: false, reason: `unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}` };

  const signedBytes = Buffer.concat([pdf.subarray(0, firstLength), pdf.subarray(secondStart, secondStart + secondLength)]);
  const actual = createHash(digest.node).update(signedBytes).digest();
  const attribute = signerInfo.signedAttrs?.attributes.find((a) => a.type === MESSAGE_DIGEST);
  const claimed = attribute?.values[0] as { valueBlock: { valueHexView: Uint8Array } } | undefined;
  if (!claimed) return { ok: false, reason: 'the signature has no messageDigest signed attribute' };
  if (!Buffer.from(claimed.valueBlock.valueHexView).equals(actual)) {
    return { ok: false, reason: `the signed ${digest.label} digest does not match the file's bytes: the PDF was changed after signing` };
  }

  useNodeCrypto();
  try {
    const result = await signedData.verify({ signer: 0, data: toArrayBuffer(signedBytes), checkChain: false, extendedMode: true });
    const signer = result.signerCertificate ? describeCertificate(result.signerCertificate) : undefined;
    if (!result.signatureVerified || !signer) {
      return { ok: false, reason: `the signature does not verify with the signer certificate's key (${result.message || 'no detail'})`, signer };
    }
    return { ok: true, signer, digestAlgorithm: digest.label, byteRange: range };
  } catch (error) {
    const failure = error as { message?: string; signerCertificate?: pkijs.Certificate | null };
    const signer = failure.signerCertificate ? describeCertificate(failure.signerCertificate) : undefined;
    return { ok: false, reason: `the signature does not verify (${failure.message ?? 'unknown error'})`, signer };
  }
}
