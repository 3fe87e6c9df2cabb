/**
 * A sealed PDF like the service's, made in the test: a one-page pdf-lib document with a canonical
 * sealed-metadata.json attached, PAdES-signed (B-B) by @libpdf/core with a self-signed seal certificate
 * made with node-forge. No mock: the verifier checks it with the real cryptography.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { PDF, P12Signer } from '@libpdf/core';
import forge from 'node-forge';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { canonicalJson } from '../../packages/verifier/src/sealed-metadata.js';

export type SealKey = { p12: Uint8Array; password: string; fingerprint: string };

/** A self-signed seal certificate and key in a PKCS#12 (RSA 2048 made by node:crypto; forge's own is slow). */
export function makeSealKey(commonName = 'Test Seal'): SealKey {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keys = {
    privateKey: forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
    publicKey: forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()),
  };
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(8))}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const attrs = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Record Signing Tests' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([{ name: 'basicConstraints', cA: false }, { name: 'keyUsage', digitalSignature: true, nonRepudiation: true }]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const password = 'fixture-password';
  const asn1 = forge.pkcs12.toPkcs12Asn1(keys.privateKey, [cert], password, { algorithm: '3des' });
  const p12 = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return { p12: new Uint8Array(p12), password, fingerprint: createHash('sha256').update(der).digest('hex') };
}

/** The exact bytes of a sealed-metadata.json: RFC 8785 canonical JSON. */
export function canonicalMetadata(metadata: Record<string, unknown>): Buffer {
  return Buffer.from(canonicalJson(metadata), 'utf8');
}

export const metadataHashOf = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A signed PDF carrying `metadataBytes` as the attachment sealed-metadata.json. */
export async function makeSealedPdf(options: { metadataBytes: Uint8Array; key: SealKey; text?: string }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.drawText(options.text ?? 'Sealed record AGR-TEST-0001', { x: 50, y: 780, size: 14, font });
  const composed = await doc.save();

  const pdf = await PDF.load(composed);
  pdf.attachments.add('sealed-metadata.json', options.metadataBytes, { mimeType: 'application/json', description: 'Sealed metadata' });
  pdf.attachments.add('audit-trail.json', Buffer.from('[]'), { mimeType: 'application/json', description: 'Audit trail' });
  const withAttachments = await pdf.save();
  const signable = await PDF.load(withAttachments);
  const signer = await P12Signer.create(options.key.p12, options.key.password);
  const { bytes } = await signable.sign({ signer, reason: 'Sealed by the record signing service', level: 'B-B' });
  return bytes;
}
