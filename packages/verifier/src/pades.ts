import { PDF, PdfArray, PdfDict, PdfRef, PdfStream, type PdfObject } from '@libpdf/core';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { pkijsEngine, toArrayBuffer } from './pkijs-engine.js';
import { changeAfterSeal } from './revisions.js';

/**
 * The PDF's PAdES signatures, checked cryptographically with nothing but the file (and certificates
 * the verifier trusts): every signature and document timestamp in the file, revision by revision;
 * the seal signature's CMS over its byte range and its signature timestamp; the DSS (certificates,
 * OCSP answers, CRLs); and whether each certificate was valid, and not revoked, when the next
 * timestamp proves the data existed, up to the time of validation. Runs in Node and in a browser
 * (WebCrypto digests, pkijs, @libpdf/core).
 */
export type SignerCertificate = { fingerprint: string; subject: string };

export type PadesLevel = 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';

export type TimestampReport = {
  /** signature: the seal signature's own timestamp; document: an archive (document) timestamp. */
  kind: 'signature' | 'document';
  ok: boolean;
  time: string | null;
  authority: SignerCertificate | null;
  /** The revision (1-based) whose bytes the timestamp covers; null for a signature timestamp. */
  revision: number | null;
  detail: string;
};

export type DssReport = { certificates: SignerCertificate[]; ocspResponses: number; crls: { issuer: string; thisUpdate: string; revoked: number }[] };

export type PadesReport = {
  ok: boolean;
  /** The first integrity failure, when !ok. */
  reason: string | null;
  signer: SignerCertificate | null;
  level: PadesLevel | null;
  /** The revision (1-based) the seal signature covers: the sealed document as signed. */
  sealRevision: number | null;
  /** End offset of the seal's revision: the bytes [0, sealEnd) are the document as sealed. */
  sealEnd: number | null;
  /** A certification signature's DocMDP permissions (1 no change, 2 form filling and signing, 3 also annotations); null for an approval signature. */
  certification: { permissions: number } | null;
  revisions: number;
  timestamps: TimestampReport[];
  dss: DssReport | null;
  /** Certificate validity in time (the LTA chain of proofs) at `at`. */
  validity: { ok: boolean; at: string; detail: string };
  /** Trust in the seal certificate and in every timestamp authority's (against the given anchors). */
  trust: { checked: boolean; ok: boolean; detail: string };
};

export type PadesOptions = {
  /** Validate at this time (default: now): after a certificate's expiry, only timestamps keep it valid. */
  at?: Date;
  /** Certificates the verifier trusts (DER); the seal and every timestamp authority must chain to one of them. */
  trust?: Uint8Array[];
};

type FoundSignature = {
  kind: 'signature' | 'document';
  subFilter: string | null;
  byteRange: [number, number, number, number];
  contents: Uint8Array;
  /** 1-based revision whose end the byte range reaches. */
  revision: number;
};

const DIGESTS: Record<string, { web: string; label: string }> = {
  '1.3.14.3.2.26': { web: 'SHA-1', label: 'SHA-1' },
  '2.16.840.1.101.3.4.2.1': { web: 'SHA-256', label: 'SHA-256' },
  '2.16.840.1.101.3.4.2.2': { web: 'SHA-384', label: 'SHA-384' },
  '2.16.840.1.101.3.4.2.3': { web: 'SHA-512', label: 'SHA-512' },
};
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';
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

const latin1 = (bytes: Uint8Array): string => new TextDecoder('latin1').decode(bytes);
const hex = (bytes: ArrayBuffer | Uint8Array): string => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

function concat(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

async function digest(algorithm: string, parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest(algorithm, toArrayBuffer(concat(parts))));
}

/** The last /ByteRange [a b c d] of the file, or null. */
export function lastByteRange(pdf: Uint8Array): [number, number, number, number] | null {
  return findSignatures(pdf).at(-1)?.byteRange ?? null;
}

/** Where each revision ends: after each %%EOF marker and its end of line. */
function revisionEnds(text: string): number[] {
  return [...text.matchAll(/%%EOF(\r\n|\r|\n)?/g)].map((m) => m.index + m[0].length);
}

/** Every signature and document timestamp dictionary of the file, in file order. */
export function findSignatures(pdf: Uint8Array): FoundSignature[] {
  const text = latin1(pdf);
  const ends = revisionEnds(text);
  const found: FoundSignature[] = [];
  for (const match of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const byteRange = [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4])] as [number, number, number, number];
    const objectStart = text.lastIndexOf(' obj', match.index);
    const objectEnd = text.indexOf('endobj', match.index);
    const dictionary = text.slice(objectStart === -1 ? Math.max(0, match.index - 4096) : objectStart, objectEnd === -1 ? match.index + 4096 : objectEnd);
    const subFilter = /\/SubFilter\s*\/([^\s/<>[\]()]+)/.exec(dictionary)?.[1] ?? null;
    const kind = /\/Type\s*\/DocTimeStamp/.test(dictionary) || subFilter === 'ETSI.RFC3161' ? 'document' : 'signature';
    const hole = byteRange[2] > byteRange[1] && byteRange[2] <= pdf.length ? text.slice(byteRange[1], byteRange[2]) : '';
    const contents = /^<[0-9a-fA-F\s]*>$/.test(hole) ? hexBytes(hole.slice(1, -1)) : new Uint8Array();
    const end = byteRange[2] + byteRange[3];
    const revision = ends.findIndex((e) => e === end) + 1;
    found.push({ kind, subFilter, byteRange, contents, revision });
  }
  return found;
}

function hexBytes(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  const bytes = new Uint8Array(clean.length >> 1);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function describeName(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues
    .map((tv) => {
      const value = (tv.value as { valueBlock?: { value?: unknown } }).valueBlock?.value;
      return `${NAME_LABELS[tv.type] ?? tv.type}=${typeof value === 'string' ? value : '?'}`;
    })
    .join(', ');
}

const derOf = (certificate: pkijs.Certificate): Uint8Array => new Uint8Array(certificate.toSchema(true).toBER(false));

async function describeCertificate(certificate: pkijs.Certificate): Promise<SignerCertificate> {
  return { fingerprint: hex(await digest('SHA-256', [derOf(certificate)])), subject: describeName(certificate.subject) };
}

function readSignedData(bytes: Uint8Array): pkijs.SignedData {
  const content = pkijs.ContentInfo.fromBER(toArrayBuffer(bytes));
  if (content.contentType !== pkijs.ContentInfo.SIGNED_DATA) throw new Error('not a CMS SignedData');
  return new pkijs.SignedData({ schema: content.content });
}

const certificatesOf = (signedData: pkijs.SignedData): pkijs.Certificate[] => (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);

type CheckedToken = { ok: boolean; detail: string; time: Date | null; authority: pkijs.Certificate | null; certificates: pkijs.Certificate[] };

/** An RFC 3161 timestamp token: its signature, and that it stamps `covered` (its message imprint is their digest). */
async function checkTimestampToken(token: Uint8Array, covered: Uint8Array): Promise<CheckedToken> {
  let signedData: pkijs.SignedData;
  let info: pkijs.TSTInfo;
  try {
    signedData = readSignedData(token);
    const content = signedData.encapContentInfo.eContent;
    if (!content) throw new Error('no TSTInfo');
    const value = new Uint8Array(content.getValue());
    info = pkijs.TSTInfo.fromBER(toArrayBuffer(value));
    // A constructed OCTET STRING (BER) reads as its parts: pkijs verifies a primitive one's bytes.
    signedData.encapContentInfo.eContent = new asn1js.OctetString({ valueHex: toArrayBuffer(value) });
  } catch (error) {
    return { ok: false, detail: `the timestamp token is not readable (${(error as Error).message})`, time: null, authority: null, certificates: [] };
  }
  const certificates = certificatesOf(signedData);
  const algorithm = DIGESTS[info.messageImprint.hashAlgorithm.algorithmId];
  if (!algorithm) return { ok: false, detail: `unsupported timestamp digest ${info.messageImprint.hashAlgorithm.algorithmId}`, time: info.genTime, authority: null, certificates };
  const expected = await digest(algorithm.web, [covered]);
  if (!sameBytes(new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView), expected)) {
    return { ok: false, detail: `the timestamp of ${info.genTime.toISOString()} stamps other bytes: the data it covers was changed`, time: info.genTime, authority: null, certificates };
  }
  try {
    const result = await signedData.verify({ signer: 0, data: toArrayBuffer(covered), checkChain: false, extendedMode: true }, pkijsEngine());
    const authority = result.signerCertificate ?? null;
    if (!result.signatureVerified || !authority) return { ok: false, detail: `the timestamp token's signature does not verify (${result.message || 'no detail'})`, time: info.genTime, authority, certificates };
    return { ok: true, detail: `${info.genTime.toISOString()} by ${describeName(authority.subject)}`, time: info.genTime, authority, certificates };
  } catch (error) {
    return { ok: false, detail: `the timestamp token's signature does not verify (${(error as Error).message})`, time: info.genTime, authority: null, certificates };
  }
}

/** The DSS of a loaded document (of the bytes up to some revision: every revision up to there merged), or null. */
function readDss(document: PDF): { certificates: pkijs.Certificate[]; ocsp: pkijs.BasicOCSPResponse[]; crls: pkijs.CertificateRevocationList[] } | null {
  const resolve = (ref: PdfRef): PdfObject | null => document.getObject(ref);
  const dss: PdfDict | undefined = document.getCatalog().getDict('DSS', resolve);
  if (!dss) return null;
  const streams = (key: string): Uint8Array[] => {
    const array = dss.getArray(key, resolve);
    if (!(array instanceof PdfArray)) return [];
    const out: Uint8Array[] = [];
    for (let i = 0; i < array.length; i += 1) {
      const item = array.at(i, resolve);
      if (item instanceof PdfStream) out.push(item.getDecodedData());
    }
    return out;
  };
  const parsed = <T>(items: Uint8Array[], parse: (bytes: Uint8Array) => T): T[] =>
    items.flatMap((bytes) => {
      try {
        return [parse(bytes)];
      } catch {
        return [];
      }
    });
  return {
    certificates: parsed(streams('Certs'), (b) => pkijs.Certificate.fromBER(toArrayBuffer(b))),
    ocsp: parsed(streams('OCSPs'), (b) => {
      const response = pkijs.OCSPResponse.fromBER(toArrayBuffer(b));
      const basic = response.responseBytes?.response;
      if (!basic) throw new Error('no basic response');
      return pkijs.BasicOCSPResponse.fromBER(toArrayBuffer(new Uint8Array(basic.valueBlock.valueHexView)));
    }),
    crls: parsed(streams('CRLs'), (b) => pkijs.CertificateRevocationList.fromBER(toArrayBuffer(b))),
  };
}

/** The DocMDP permissions of the catalog's /Perms, when they name the seal's signature dictionary (the one of this byte range). */
function docMdpOf(document: PDF, byteRange: FoundSignature['byteRange']): { permissions: number } | null {
  const resolve = (ref: PdfRef): PdfObject | null => document.getObject(ref);
  const signature = document.getCatalog().getDict('Perms', resolve)?.getDict('DocMDP', resolve);
  const range = signature?.getArray('ByteRange', resolve);
  if (!signature || !range || byteRange.some((n, i) => (range.at(i, resolve) as { value?: number } | undefined)?.value !== n)) return null;
  const references = signature.getArray('Reference', resolve);
  for (let i = 0; i < (references?.length ?? 0); i += 1) {
    const reference = references!.at(i, resolve);
    if (!(reference instanceof PdfDict) || reference.getName('TransformMethod', resolve)?.value !== 'DocMDP') continue;
    return { permissions: reference.getDict('TransformParams', resolve)?.getNumber('P', resolve)?.value ?? 2 };
  }
  return null;
}

const isSelfIssued = (certificate: pkijs.Certificate): boolean => certificate.subject.isEqual(certificate.issuer);

/** The issuer of `certificate` among `pool`, by name and by the signature it carries. */
async function issuerOf(certificate: pkijs.Certificate, pool: pkijs.Certificate[]): Promise<pkijs.Certificate | null> {
  for (const candidate of pool) {
    if (!candidate.subject.isEqual(certificate.issuer)) continue;
    try {
      if (await certificate.verify(candidate, pkijsEngine())) return candidate;
    } catch {
      // Another key of the same name: try the next.
    }
  }
  return null;
}

/** The chain from `leaf` up as far as `pool` reaches (a self-issued certificate ends it). */
async function chainOf(leaf: pkijs.Certificate, pool: pkijs.Certificate[]): Promise<pkijs.Certificate[]> {
  const chain = [leaf];
  let current = leaf;
  while (!isSelfIssued(current) && chain.length < 8) {
    const issuer = await issuerOf(current, pool);
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return chain;
}

type Revocation = { known: boolean; revokedAt: Date | null; source: string };

/** What the DSS says of `certificate`'s revocation (issued by `issuer`): an OCSP answer first, then a CRL. */
async function revocationOf(certificate: pkijs.Certificate, issuer: pkijs.Certificate, dss: NonNullable<ReturnType<typeof readDss>>): Promise<Revocation> {
  for (const answer of dss.ocsp) {
    try {
      const status = await answer.getCertificateStatus(certificate, issuer, pkijsEngine());
      if (!status.isForCertificate) continue;
      if (status.status === 0) return { known: true, revokedAt: null, source: 'OCSP' };
      if (status.status === 1) {
        const single = answer.tbsResponseData.responses.find((r) => r.certID.serialNumber.isEqual(certificate.serialNumber));
        const revokedAt = (single?.certStatus as { valueBlock?: { value?: asn1js.GeneralizedTime[] } } | undefined)?.valueBlock?.value?.[0]?.toDate?.() ?? new Date(0);
        return { known: true, revokedAt, source: 'OCSP' };
      }
    } catch {
      // An answer for another certificate or one that cannot be read: the next.
    }
  }
  for (const crl of dss.crls) {
    if (!crl.issuer.isEqual(certificate.issuer)) continue;
    try {
      if (!(await crl.verify({ issuerCertificate: issuer }, pkijsEngine()))) continue;
    } catch {
      continue;
    }
    const entry = crl.revokedCertificates?.find((r) => r.userCertificate.isEqual(certificate.serialNumber));
    return { known: true, revokedAt: entry ? entry.revocationDate.value : null, source: 'CRL' };
  }
  return { known: false, revokedAt: null, source: 'none' };
}

const validAt = (certificate: pkijs.Certificate, at: Date): boolean => certificate.notBefore.value <= at && at <= certificate.notAfter.value;
const cn = (certificate: pkijs.Certificate): string => describeName(certificate.subject);

/**
 * When the newest document timestamp stops proving anything by itself: the earliest expiry of its
 * authority's certificate chain (as the token carries it). Null without a document timestamp.
 */
export async function archiveExpiry(pdf: Uint8Array): Promise<Date | null> {
  const newest = findSignatures(pdf).filter((s) => s.kind === 'document').at(-1);
  if (!newest) return null;
  const covered = concat([pdf.subarray(0, newest.byteRange[1]), pdf.subarray(newest.byteRange[2], newest.byteRange[2] + newest.byteRange[3])]);
  const checked = await checkTimestampToken(newest.contents, covered);
  if (!checked.ok || !checked.authority) return null;
  const chain = await chainOf(checked.authority, checked.certificates);
  return new Date(Math.min(...chain.map((c) => c.notAfter.value.getTime())));
}

/** Verifies every PAdES signature and timestamp of a sealed PDF (see PadesReport). */
export async function inspectPades(pdf: Uint8Array, options: PadesOptions = {}): Promise<PadesReport> {
  const at = options.at ?? new Date();
  const text = latin1(pdf);
  const revisions = revisionEnds(text).length;
  const signatures = findSignatures(pdf);
  const none = { level: null, sealRevision: null, sealEnd: null, certification: null, revisions, timestamps: [], dss: null, validity: { ok: false, at: at.toISOString(), detail: 'not checked' }, trust: { checked: false, ok: false, detail: 'not checked' } };
  const fail = (reason: string, signer: SignerCertificate | null = null): PadesReport => ({ ok: false, reason, signer, ...none });

  const seal = signatures.find((s) => s.kind === 'signature');
  if (!seal) return fail('the PDF has no signature (/ByteRange not found)');
  const last = signatures.at(-1)!;
  const [start, firstLength, secondStart, secondLength] = last.byteRange;
  if (start !== 0 || firstLength <= 0 || secondStart <= firstLength || secondStart + secondLength !== pdf.length) {
    return fail(`the ${last.kind === 'document' ? 'last timestamp' : 'signature'} does not cover the whole file (ByteRange [${last.byteRange.join(' ')}], file length ${pdf.length}): bytes were added or removed`);
  }
  for (const found of signatures) {
    const [a, b, c, d] = found.byteRange;
    if (a !== 0 || b <= 0 || c <= b || found.revision === 0 || c + d > pdf.length) return fail(`a signature's byte range [${found.byteRange.join(' ')}] does not end a revision of the file`);
    if (found.contents.length === 0) return fail('a signature contents hole is not a hex string');
    // After its CMS, a /Contents holds only zero padding: nothing may hide in the bytes no signature covers.
    const used = asn1js.fromBER(toArrayBuffer(found.contents)).offset;
    if (used > 0 && found.contents.subarray(used).some((b) => b !== 0)) {
      return fail(`the ${found.kind === 'document' ? 'document timestamp' : 'signature'}'s /Contents carries other bytes than zero padding after its CMS (revision ${found.revision}): the bytes no signature covers were changed`);
    }
  }
  const signedPart = (found: FoundSignature): Uint8Array[] => [pdf.subarray(0, found.byteRange[1]), pdf.subarray(found.byteRange[2], found.byteRange[2] + found.byteRange[3])];

  // The seal signature over its revision.
  let signedData: pkijs.SignedData;
  try {
    signedData = readSignedData(seal.contents);
  } catch (error) {
    return fail(`the signature is not a readable CMS SignedData (${(error as Error).message})`);
  }
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) return fail('the signature has no signer');
  const algorithm = DIGESTS[signerInfo.digestAlgorithm.algorithmId];
  if (!algorithm || algorithm.label === 'SHA-1') return fail(`unsupported digest algorithm ${signerInfo.digestAlgorithm.algorithmId}`);
  const actual = await digest(algorithm.web, signedPart(seal));
  const claimed = signerInfo.signedAttrs?.attributes.find((a) => a.type === MESSAGE_DIGEST)?.values[0] as { valueBlock: { valueHexView: Uint8Array } } | undefined;
  if (!claimed) return fail('the signature has no messageDigest signed attribute');
  if (!sameBytes(new Uint8Array(claimed.valueBlock.valueHexView), actual)) return fail(`the signed ${algorithm.label} digest does not match the file's bytes: the PDF was changed after signing`);
  let sealCertificate: pkijs.Certificate;
  try {
    const result = await signedData.verify({ signer: 0, data: toArrayBuffer(concat(signedPart(seal))), checkChain: false, extendedMode: true }, pkijsEngine());
    if (!result.signatureVerified || !result.signerCertificate) {
      return fail(`the signature does not verify with the signer certificate's key (${result.message || 'no detail'})`, result.signerCertificate ? await describeCertificate(result.signerCertificate) : null);
    }
    sealCertificate = result.signerCertificate;
  } catch (error) {
    const failure = error as { message?: string; signerCertificate?: pkijs.Certificate | null };
    return fail(`the signature does not verify (${failure.message ?? 'unknown error'})`, failure.signerCertificate ? await describeCertificate(failure.signerCertificate) : null);
  }
  const signer = await describeCertificate(sealCertificate);
  const timestamps: TimestampReport[] = [];
  const pool: pkijs.Certificate[] = [...certificatesOf(signedData)];
  const proofs: { certificate: pkijs.Certificate | null; time: Date | null; what: string }[] = [];

  // The signature timestamp stamps the signature value.
  const tokenAttribute = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === SIGNATURE_TIMESTAMP);
  if (tokenAttribute) {
    const token = new Uint8Array((tokenAttribute.values[0] as asn1js.Sequence).toBER(false));
    const checked = await checkTimestampToken(token, new Uint8Array(signerInfo.signature.valueBlock.valueHexView));
    pool.push(...checked.certificates);
    timestamps.push({ kind: 'signature', ok: checked.ok, time: checked.time?.toISOString() ?? null, authority: checked.authority ? await describeCertificate(checked.authority) : null, revision: null, detail: checked.detail });
    if (!checked.ok) return { ...none, ok: false, reason: `the signature timestamp is not valid: ${checked.detail}`, signer, timestamps };
    proofs.push({ certificate: checked.authority, time: checked.time, what: 'the signature timestamp' });
  }

  // Document timestamps, each over every byte before it.
  for (const found of signatures.filter((s) => s.kind === 'document')) {
    const checked = await checkTimestampToken(found.contents, concat(signedPart(found)));
    pool.push(...checked.certificates);
    timestamps.push({ kind: 'document', ok: checked.ok, time: checked.time?.toISOString() ?? null, authority: checked.authority ? await describeCertificate(checked.authority) : null, revision: found.revision, detail: checked.detail });
    if (!checked.ok) return { ...none, ok: false, reason: `the document timestamp of revision ${found.revision} is not valid: ${checked.detail}`, signer, timestamps };
    proofs.push({ certificate: checked.authority, time: checked.time, what: `the document timestamp of revision ${found.revision}` });
  }
  const anySignatureAfterSeal = signatures.some((s) => s !== seal && s.kind === 'signature');
  if (anySignatureAfterSeal) return { ...none, ok: false, reason: 'the file carries a second signature besides the seal', signer, timestamps };
  const sealEnd = seal.byteRange[2] + seal.byteRange[3];
  // The whole file, parsed once for its pages and its DSS.
  let whole: Promise<PDF> | undefined;
  const wholeDocument = () => (whole ??= PDF.load(pdf));
  // The document as sealed, parsed once for the revision check and its certification (the whole file when nothing follows).
  const sealedDocument = sealEnd < pdf.length ? PDF.load(pdf.subarray(0, sealEnd)) : wholeDocument();
  if (sealEnd < pdf.length) {
    // Revisions after the seal may add validation data and document timestamps, and nothing else.
    const [sealed, now] = await Promise.all([sealedDocument, wholeDocument()]);
    const change = changeAfterSeal(sealed, now);
    if (change) return { ...none, ok: false, reason: `a revision after the seal changes the document: ${change}; only validation data (a DSS) and document timestamps may follow the seal`, signer, timestamps };
  }

  const certification = await sealedDocument.then((sealed) => docMdpOf(sealed, seal.byteRange)).catch(() => null);

  // The DSS: as the file ends, and as it stood before the newest document timestamp (B-LTA needs it there).
  const dss = await wholeDocument().then(readDss).catch(() => null);
  const newestArchive = signatures.filter((s) => s.kind === 'document').at(-1);
  const before = newestArchive ? revisionEnds(text)[newestArchive.revision - 2] : undefined;
  const dssBeforeArchive = dss !== null && before !== undefined && (await PDF.load(pdf.subarray(0, before)).then(readDss).catch(() => null)) !== null;
  if (dss) pool.push(...dss.certificates);

  // Validity in time: each certificate must hold when the next proof shows the data existed.
  const sealChain = await chainOf(sealCertificate, pool);
  const proofChains = await Promise.all(proofs.map((p) => (p.certificate ? chainOf(p.certificate, pool) : Promise.resolve([]))));
  const problems: string[] = [];
  const revocationGaps: string[] = [];
  const unestablished: string[] = [];
  // The newest document timestamp's own validation data goes in the DSS before the next one (at renewal):
  // until then its token carries its chain, and the DSS need not hold it for the level.
  const newestArchived = proofs.length > 0 && signatures.some((s) => s.kind === 'document');
  const needs: { chain: pkijs.Certificate[]; until: Date; why: string }[] = [
    { chain: sealChain, until: proofs[0]?.time ?? at, why: proofs[0] ? `${proofs[0].what} (${proofs[0].time!.toISOString()})` : at.toISOString() },
    ...proofs.map((proof, i) => ({ chain: proofChains[i]!, until: proofs[i + 1]?.time ?? at, why: proofs[i + 1] ? `${proofs[i + 1]!.what} (${proofs[i + 1]!.time!.toISOString()})` : at.toISOString() })),
  ];
  const covered = newestArchived ? needs.slice(0, -1) : needs;
  for (const need of needs) {
    for (let i = 0; i < need.chain.length; i += 1) {
      const certificate = need.chain[i]!;
      if (!validAt(certificate, need.until)) {
        problems.push(`${cn(certificate)} is valid ${certificate.notBefore.value.toISOString()} to ${certificate.notAfter.value.toISOString()}, not at ${need.why}`);
      }
      // A root ends the chain: trusted or not, nothing in the file revokes it.
      const issuer = need.chain[i + 1];
      if (!issuer) continue;
      const status: Revocation = dss ? await revocationOf(certificate, issuer, dss) : { known: false, revokedAt: null, source: 'none' };
      if (status.revokedAt && status.revokedAt <= need.until) problems.push(`${cn(certificate)} was revoked on ${status.revokedAt.toISOString()} (${status.source}), before ${need.why}`);
      if (status.known) continue;
      if (covered.includes(need)) revocationGaps.push(cn(certificate));
      // Past its expiry a certificate's revocation can no longer be asked (CAs drop expired ones from CRLs and OCSP):
      // only the file's own OCSP answer or CRL proves it was not revoked before the timestamp.
      if (need !== needs.at(-1) && at > certificate.notAfter.value) {
        problems.push(`${cn(certificate)} expired on ${certificate.notAfter.value.toISOString()} and the file holds no OCSP answer or CRL for it: nothing proves it was not revoked before ${need.why}`);
      } else if (!unestablished.includes(cn(certificate))) unestablished.push(cn(certificate));
    }
  }
  const revocationNote = unestablished.length ? `; the revocation of ${unestablished.join(', ')} was not established (the file holds no OCSP answer or CRL for ${unestablished.length === 1 ? 'it' : 'them'})` : '';
  const validity = problems.length
    ? { ok: false, at: at.toISOString(), detail: problems.join('; ') }
    : {
        ok: true,
        at: at.toISOString(),
        detail:
          proofs.length === 0
            ? `the seal certificate is valid at ${at.toISOString()} (no timestamp proves an earlier time)${revocationNote}`
            : `each certificate held when the next timestamp proves the data existed, and the newest timestamp's certificate is valid at ${at.toISOString()}${revocationNote}`,
      };

  // Level: what the file holds, from B-B up.
  // PAdES B-T: a signature timestamp, or a document timestamp over the signature (a seal finished later has the latter).
  const timeProven = timestamps.some((t) => t.ok);
  const inDss = dss?.certificates.map(derOf) ?? [];
  const chainsCovered = dss !== null && revocationGaps.length === 0 && covered.every((need) => need.chain.every((c) => inDss.some((d) => sameBytes(d, derOf(c)))));
  const level: PadesLevel = !timeProven ? 'B-B' : !chainsCovered ? 'B-T' : dssBeforeArchive ? 'B-LTA' : 'B-LT';

  // Trust: the seal's chain, and each timestamp authority's, must end at a certificate the verifier gave.
  const anchors = (options.trust ?? []).map((der) => pkijs.Certificate.fromBER(toArrayBuffer(der)));
  const top = sealChain.at(-1)!;
  const selfSigned = sealChain.length === 1 && isSelfIssued(sealCertificate);
  const anchored = async (chain: pkijs.Certificate[]) => chain.some((c) => anchors.some((a) => sameBytes(derOf(a), derOf(c)))) || (await issuerOf(chain.at(-1)!, anchors)) !== null;
  let trust: PadesReport['trust'];
  if (anchors.length === 0) {
    trust = { checked: false, ok: true, detail: selfSigned ? 'not checked (no trusted certificate given); the seal certificate is self-signed' : `not checked (no trusted certificate given); the seal chains to ${cn(top)}` };
  } else {
    // Each authority once (a renewed file holds several timestamps of one authority).
    const authorities = new Map<string, pkijs.Certificate[]>();
    proofs.forEach((proof, i) => {
      if (proof.certificate && !authorities.has(cn(proof.certificate))) authorities.set(cn(proof.certificate), proofChains[i]!);
    });
    const untrustedAuthorities: string[] = [];
    for (const [name, chain] of authorities) if (!(await anchored(chain))) untrustedAuthorities.push(name);
    const sealTrusted = await anchored(sealChain);
    const sealPart = sealTrusted
      ? `the seal certificate chains to a trusted certificate (${cn(top)})`
      : selfSigned
        ? `the seal certificate (${cn(sealCertificate)}) is self-signed and not among the trusted certificates`
        : `the seal chains to ${cn(top)}, which is not among the trusted certificates`;
    const stamps =
      authorities.size === 0
        ? ''
        : untrustedAuthorities.length === 0
          ? `, and so does each timestamp authority's (${[...authorities.keys()].join(', ')})`
          : `; the timestamp ${untrustedAuthorities.length === 1 ? 'authority' : 'authorities'} ${untrustedAuthorities.join(', ')} ${untrustedAuthorities.length === 1 ? 'does' : 'do'} not chain to a trusted certificate`;
    trust = { checked: true, ok: sealTrusted && untrustedAuthorities.length === 0, detail: `${sealPart}${stamps}` };
  }

  return {
    ok: true,
    reason: null,
    signer,
    level,
    sealRevision: seal.revision,
    sealEnd,
    certification,
    revisions,
    timestamps,
    dss: dss
      ? {
          certificates: await Promise.all(dss.certificates.map(describeCertificate)),
          ocspResponses: dss.ocsp.length,
          crls: dss.crls.map((crl) => ({ issuer: describeName(crl.issuer), thisUpdate: crl.thisUpdate.value.toISOString(), revoked: crl.revokedCertificates?.length ?? 0 })),
        }
      : null,
    validity,
    trust,
  };
}
