import { createHash } from 'node:crypto';
import type { Signer } from '@libpdf/core';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { toArrayBuffer } from '../../../packages/verifier/src/pkijs-engine.js';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signatureTimestamp: '1.2.840.113549.1.9.16.2.14',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  cmsAlgorithmProtection: '1.2.840.113549.1.9.52',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

/** One DER element: its tag, its length and its contents. */
function tlv(tag: number, ...contents: Uint8Array[]): Buffer {
  const length = contents.reduce((n, part) => n + part.length, 0);
  let head: number[];
  if (length < 0x80) head = [tag, length];
  else if (length < 0x100) head = [tag, 0x81, length];
  else if (length < 0x10000) head = [tag, 0x82, length >> 8, length & 0xff];
  else head = [tag, 0x83, length >> 16, (length >> 8) & 0xff, length & 0xff];
  return Buffer.concat([Buffer.from(head), ...contents]);
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OCTET_STRING = 0x04;
/** [0] and [1], constructed: the certificates and signed attributes (IMPLICIT), the content (EXPLICIT); the unsigned attributes. */
const CONTEXT_0 = 0xa0;
const CONTEXT_1 = 0xa1;

const der = (element: asn1js.BaseBlock | { toSchema(): asn1js.BaseBlock }): Buffer =>
  Buffer.from('toBER' in element ? element.toBER(false) : element.toSchema().toBER(false));
const oid = (value: string) => der(new asn1js.ObjectIdentifier({ value }));
const attribute = (type: string, ...values: Uint8Array[]) => tlv(SEQUENCE, oid(type), tlv(SET, ...values));
const integer1 = Buffer.from([0x02, 0x01, 0x01]);

/**
 * The seal's CMS (ETSI.CAdES.detached), written here from parts encoded once per seal key: what
 * @libpdf/core's CAdES builder signs, less its signing-time attribute (PAdES baseline takes the claimed
 * time from the signature dictionary's /M). The signed attributes are, in this order, content type,
 * CMS algorithm protection (RFC 6211), message digest and ESS signing-certificate-v2 (RFC 5035); the
 * certificates are the signer's and its chain; a signature timestamp, when there is one, is the one
 * unsigned attribute. A seal then costs the signature alone and the concatenation of its parts: the
 * library's builder parsed the certificates and encoded every part with asn1js on each seal, and
 * removing its signing-time meant parsing its CMS again (about 15 ms of a render thread a seal).
 */
export class SealCms {
  private constructor(
    private readonly signer: Signer,
    /** Content type and CMS algorithm protection, the attributes before the message digest. */
    private readonly leadingAttributes: Buffer,
    /** ESS signing-certificate-v2, the attribute after it. */
    private readonly trailingAttributes: Buffer,
    /** SignedData's version, digest algorithms, encapsulated content info and certificates. */
    private readonly signedDataHead: Buffer,
    /** SignerInfo's version, issuer and serial number, and digest algorithm. */
    private readonly signerInfoHead: Buffer,
    private readonly signatureAlgorithm: Buffer,
  ) {}

  private static readonly known = new WeakMap<Signer, SealCms>();

  /** The parts of `signer`'s CMS, encoded once per signer. */
  static of(signer: Signer): SealCms {
    let cms = SealCms.known.get(signer);
    if (!cms) SealCms.known.set(signer, (cms = SealCms.encode(signer)));
    return cms;
  }

  private static encode(signer: Signer): SealCms {
    const parse = (bytes: Uint8Array) => {
      const asn1 = asn1js.fromBER(toArrayBuffer(bytes));
      if (asn1.offset === -1) throw new Error('the seal certificate cannot be parsed');
      return new pkijs.Certificate({ schema: asn1.result });
    };
    const certificate = parse(signer.certificate);
    const sha256 = tlv(SEQUENCE, oid(OID.sha256));
    const signatureOid = oid(signer.keyType === 'RSA' ? OID.sha256WithRsa : OID.ecdsaWithSha256);
    const contentType = attribute(OID.contentType, oid(OID.data));
    const protection = attribute(OID.cmsAlgorithmProtection, tlv(SEQUENCE, sha256, tlv(CONTEXT_1, signatureOid, ...(signer.keyType === 'RSA' ? [Buffer.from([0x05, 0x00])] : []))));
    const issuer = der(certificate.issuer);
    const serial = der(certificate.serialNumber);
    const certificateHash = createHash('sha256').update(signer.certificate).digest();
    // ESSCertIDv2 { certHash, issuerSerial { issuer: GeneralNames { [4] directoryName }, serialNumber } } (SHA-256 is the default hash algorithm).
    const issuerSerial = tlv(SEQUENCE, tlv(SEQUENCE, tlv(CONTEXT_0 | 0x04, issuer)), serial);
    const signingCertificate = attribute(OID.signingCertificateV2, tlv(SEQUENCE, tlv(SEQUENCE, tlv(SEQUENCE, tlv(OCTET_STRING, certificateHash), issuerSerial))));
    const certificates = [signer.certificate, ...(signer.certificateChain ?? [])].map((bytes) => Buffer.from(bytes));
    return new SealCms(
      signer,
      Buffer.concat([contentType, protection]),
      signingCertificate,
      Buffer.concat([integer1, tlv(SET, sha256), tlv(SEQUENCE, oid(OID.data)), tlv(CONTEXT_0, ...certificates)]),
      Buffer.concat([integer1, tlv(SEQUENCE, issuer, serial), sha256]),
      tlv(SEQUENCE, signatureOid),
    );
  }

  /**
   * The CMS (DER) over a document whose signed bytes have this SHA-256 digest, signed with the seal
   * key; `timestamp` is asked for a timestamp token (DER) over the signature value's SHA-256 and may
   * answer null (no timestamp).
   */
  async sign(documentDigest: Uint8Array, timestamp?: (signatureDigest: Uint8Array) => Promise<Uint8Array | null>): Promise<Uint8Array> {
    const attributes = [this.leadingAttributes, attribute(OID.messageDigest, tlv(OCTET_STRING, documentDigest)), this.trailingAttributes];
    const signature = await this.signer.sign(tlv(SET, ...attributes), 'SHA-256');
    const token = timestamp ? await timestamp(createHash('sha256').update(signature).digest()) : null;
    const signerInfo = tlv(
      SEQUENCE,
      this.signerInfoHead,
      tlv(CONTEXT_0, ...attributes),
      this.signatureAlgorithm,
      tlv(OCTET_STRING, signature),
      ...(token ? [tlv(CONTEXT_1, attribute(OID.signatureTimestamp, token))] : []),
    );
    return tlv(SEQUENCE, oid(OID.signedData), tlv(CONTEXT_0, tlv(SEQUENCE, this.signedDataHead, tlv(SET, signerInfo))));
  }
}
