import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import forge from 'node-forge';
import * as pkijs from 'pkijs';

type CryptoKey = webcrypto.CryptoKey;

const DAY_MS = 86_400_000;

const OID = {
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
  crlNumber: '2.5.29.20',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  accessOcsp: '1.3.6.1.5.5.7.48.1',
  accessCaIssuers: '1.3.6.1.5.5.7.48.2',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
};

/** Node hash names for the CertID hash algorithms an OCSP client may choose. */
const CERT_ID_HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** KeyUsage bits as DER named-bit strings (first byte, unused trailing bits). */
const KEY_USAGE = {
  digitalSignature: { bits: 0x80, unused: 7 },
  sealing: { bits: 0xc0, unused: 6 }, // digitalSignature + nonRepudiation
  certificateAuthority: { bits: 0x06, unused: 1 }, // keyCertSign + cRLSign
};

export interface IssuedIdentity {
  commonName: string;
  /** DER. */
  certificate: Uint8Array;
  /** Issuer certificates, nearest first, up to and including the root (DER). */
  chain: Uint8Array[];
  /** RSA 2048, RSASSA-PKCS1-v1_5 SHA-256, extractable. */
  privateKey: CryptoKey;
  certificatePem: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 hex (lowercase, no colons) of the DER. */
  fingerprint: string;
  /** PKCS#12 (certificate + chain + key) that @libpdf/core's P12Signer and `openssl pkcs12` open. */
  p12(password: string): Promise<Buffer>;
}

export interface CertificateAuthority {
  name: string;
  rootCertificate: Uint8Array;
  rootPem: string;
  /** http://127.0.0.1:PORT */
  url: string;
  /**
   * 'seal': keyUsage digitalSignature+nonRepudiation (critical), no EKU; 'timestamping': keyUsage digitalSignature,
   * EKU id-kp-timeStamping (critical). Both point at this server for CRL, OCSP and the issuer certificate.
   * Valid from a day ago for two years unless notBefore/notAfter say otherwise.
   */
  issue(options: { commonName: string; kind: 'seal' | 'timestamping'; notBefore?: Date; notAfter?: Date }): Promise<IssuedIdentity>;
  /** Lists the certificate on every later CRL and answers 'revoked' for it over OCSP. */
  revoke(identity: IssuedIdentity, at?: Date): void;
  /** How many times each path was requested (e.g. requests['/crl']); GET /ocsp/<request> counts as '/ocsp'. */
  requests: Record<string, number>;
  /** While true, the OCSP responder and the CRL distribution point answer 503 (the revocation servers are down). */
  revocationDown: boolean;
  close(): Promise<void>;
}

interface Root {
  certificate: pkijs.Certificate;
  privateKey: CryptoKey;
  keyIdentifier: ArrayBuffer;
}

/**
 * A throwaway root CA on 127.0.0.1 that issues leaf certificates and publishes what PAdES LTV needs to validate
 * them: a CRL, an OCSP responder and the root certificate (AIA caIssuers), all signed by the root itself.
 */
export async function startCertificateAuthority(options: { name?: string } = {}): Promise<CertificateAuthority> {
  const name = options.name ?? 'Test root CA';
  const root = await createRoot(name);
  const rootDer = der(root.certificate);
  const issued = new Set<string>();
  const revoked = new Map<string, Date>();
  const requests: Record<string, number> = {};
  let crlNumber = 0;

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      const route = path.startsWith('/ocsp/') ? '/ocsp' : path;
      requests[route] = (requests[route] ?? 0) + 1;
      answer(request.method ?? 'GET', path, Buffer.concat(chunks))
        .then((reply) => {
          if (!reply) response.writeHead(404).end();
          else response.writeHead(200, { 'Content-Type': reply.type, 'Content-Length': reply.body.byteLength }).end(reply.body);
        })
        .catch((error: unknown) => response.writeHead(state.revocationDown ? 503 : 500).end(String(error)));
    });
  });

  const state = { revocationDown: false };
  async function answer(method: string, path: string, body: Buffer): Promise<{ type: string; body: Uint8Array } | null> {
    if (method === 'GET' && path === '/ca.cer') return { type: 'application/pkix-cert', body: rootDer };
    if (state.revocationDown && (path === '/crl' || path.startsWith('/ocsp'))) throw new Error('revocation servers down');
    if (method === 'GET' && path === '/crl') {
      crlNumber += 1;
      return { type: 'application/pkix-crl', body: await signCrl(root, revoked, crlNumber) };
    }
    if (method === 'POST' && path === '/ocsp') return { type: 'application/ocsp-response', body: await respondOcsp(root, body, issued, revoked) };
    if (method === 'GET' && path.startsWith('/ocsp/')) {
      const requestDer = Buffer.from(decodeURIComponent(path.slice('/ocsp/'.length)), 'base64');
      return { type: 'application/ocsp-response', body: await respondOcsp(root, requestDer, issued, revoked) };
    }
    return null;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    name,
    rootCertificate: rootDer,
    rootPem: toPem(rootDer),
    url,
    requests,
    get revocationDown() {
      return state.revocationDown;
    },
    set revocationDown(down: boolean) {
      state.revocationDown = down;
    },
    async issue({ commonName, kind, notBefore, notAfter }) {
      const now = wholeSeconds(new Date());
      const validFrom = wholeSeconds(notBefore ?? new Date(now.getTime() - DAY_MS));
      const validTo = wholeSeconds(notAfter ?? new Date(now.getTime() + 2 * 365 * DAY_MS));
      const keys = await generateRsaKeys();
      const certificate = new pkijs.Certificate();
      certificate.version = 2;
      certificate.serialNumber = randomSerial();
      certificate.issuer = root.certificate.subject;
      certificate.subject.typesAndValues.push(commonNameAttribute(commonName));
      certificate.notBefore = timeOf(validFrom);
      certificate.notAfter = timeOf(validTo);
      await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
      certificate.extensions = [
        extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: false })),
        keyUsageExtension(kind === 'seal' ? KEY_USAGE.sealing : KEY_USAGE.digitalSignature),
        ...(kind === 'timestamping' ? [extension(OID.extKeyUsage, true, new pkijs.ExtKeyUsage({ keyPurposes: [OID.timeStamping] }))] : []),
        extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyIdentifierOf(certificate) })),
        extension(OID.authorityKeyIdentifier, false, new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: root.keyIdentifier }) })),
        extension(
          OID.crlDistributionPoints,
          false,
          new pkijs.CRLDistributionPoints({ distributionPoints: [new pkijs.DistributionPoint({ distributionPoint: [uri(`${url}/crl`)] })] }),
        ),
        extension(
          OID.authorityInfoAccess,
          false,
          new pkijs.InfoAccess({
            accessDescriptions: [
              new pkijs.AccessDescription({ accessMethod: OID.accessOcsp, accessLocation: uri(`${url}/ocsp`) }),
              new pkijs.AccessDescription({ accessMethod: OID.accessCaIssuers, accessLocation: uri(`${url}/ca.cer`) }),
            ],
          }),
        ),
      ];
      await signCertificate(certificate, root.privateKey);
      issued.add(serialKey(certificate.serialNumber));
      const certificateDer = der(certificate);
      return {
        commonName,
        certificate: certificateDer,
        chain: [rootDer],
        privateKey: keys.privateKey,
        certificatePem: toPem(certificateDer),
        notBefore: validFrom,
        notAfter: validTo,
        fingerprint: createHash('sha256').update(certificateDer).digest('hex'),
        p12: (password) => toPkcs12(keys.privateKey, [certificateDer, rootDer], password, commonName),
      };
    },
    revoke(identity, at = new Date()) {
      revoked.set(serialKey(pkijs.Certificate.fromBER(identity.certificate).serialNumber), wholeSeconds(at));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function createRoot(name: string): Promise<Root> {
  const keys = await generateRsaKeys();
  const now = wholeSeconds(new Date());
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = randomSerial();
  certificate.issuer.typesAndValues.push(commonNameAttribute(name));
  certificate.subject.typesAndValues.push(commonNameAttribute(name));
  certificate.notBefore = timeOf(new Date(now.getTime() - DAY_MS));
  certificate.notAfter = timeOf(new Date(now.getTime() + 20 * 365 * DAY_MS));
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  const keyIdentifier = keyIdentifierOf(certificate);
  certificate.extensions = [
    extension(OID.basicConstraints, true, new pkijs.BasicConstraints({ cA: true })),
    keyUsageExtension(KEY_USAGE.certificateAuthority),
    extension(OID.subjectKeyIdentifier, false, new asn1js.OctetString({ valueHex: keyIdentifier })),
  ];
  await signCertificate(certificate, keys.privateKey);
  return { certificate, privateKey: keys.privateKey, keyIdentifier };
}

async function signCrl({ certificate, privateKey, keyIdentifier }: Root, revoked: Map<string, Date>, number: number): Promise<Uint8Array> {
  const now = wholeSeconds(new Date());
  const crl = new pkijs.CertificateRevocationList({
    version: 1,
    issuer: certificate.subject,
    thisUpdate: timeOf(now),
    nextUpdate: timeOf(new Date(now.getTime() + 7 * DAY_MS)),
    crlExtensions: new pkijs.Extensions({
      extensions: [
        extension(OID.crlNumber, false, new asn1js.Integer({ value: number })),
        extension(OID.authorityKeyIdentifier, false, new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: keyIdentifier }) })),
      ],
    }),
  });
  // RFC 5280: an empty revokedCertificates list is omitted, not encoded as an empty SEQUENCE.
  if (revoked.size > 0) {
    crl.revokedCertificates = [...revoked].map(
      ([serial, at]) => new pkijs.RevokedCertificate({ userCertificate: new asn1js.Integer({ valueHex: Buffer.from(serial, 'hex') }), revocationDate: timeOf(at) }),
    );
  }
  await crl.sign(privateKey, 'SHA-256');
  return new Uint8Array(crl.toSchema(true).toBER(false));
}

/** RFC 6960 answer signed by the root itself, so no delegated responder certificate is needed. */
async function respondOcsp(root: Root, requestDer: Uint8Array, issued: Set<string>, revoked: Map<string, Date>): Promise<Uint8Array> {
  let request: pkijs.OCSPRequest;
  try {
    request = pkijs.OCSPRequest.fromBER(requestDer);
  } catch {
    const malformedRequest = 1;
    return new Uint8Array(new pkijs.OCSPResponse({ responseStatus: new asn1js.Enumerated({ value: malformedRequest }) }).toSchema().toBER(false));
  }
  const now = wholeSeconds(new Date());
  const nonce = request.tbsRequest.requestExtensions?.find((extension) => extension.extnID === OID.ocspNonce);
  const responses = request.tbsRequest.requestList.map(({ reqCert }) => {
    const serial = serialKey(reqCert.serialNumber);
    const known = isIssuedBy(root, reqCert) && issued.has(serial);
    return new pkijs.SingleResponse({
      certID: reqCert,
      certStatus: known ? certStatus(revoked.get(serial)) : implicitNull(2),
      thisUpdate: now,
      nextUpdate: new Date(now.getTime() + 7 * DAY_MS),
    });
  });
  const basic = new pkijs.BasicOCSPResponse({
    tbsResponseData: new pkijs.ResponseData({
      responderID: root.certificate.subject,
      producedAt: now,
      responses,
      ...(nonce ? { responseExtensions: [nonce] } : {}),
    }),
    certs: [root.certificate],
  });
  await basic.sign(root.privateKey, 'SHA-256');
  const response = new pkijs.OCSPResponse({
    responseStatus: new asn1js.Enumerated({ value: 0 }),
    responseBytes: new pkijs.ResponseBytes({ responseType: OID.ocspBasic, response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }) }),
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

/** Whether a CertID names this root as issuer, hashed with whichever algorithm the client chose. */
function isIssuedBy({ certificate }: Root, certId: pkijs.CertID): boolean {
  const hash = CERT_ID_HASHES[certId.hashAlgorithm.algorithmId];
  if (!hash) return false;
  const digest = (data: ArrayBuffer | Uint8Array) => createHash(hash).update(new Uint8Array(data)).digest();
  const nameHash = digest(certificate.subject.toSchema().toBER(false));
  const keyHash = digest(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
  return nameHash.equals(certId.issuerNameHash.valueBlock.valueHexView) && keyHash.equals(certId.issuerKeyHash.valueBlock.valueHexView);
}

async function toPkcs12(privateKey: CryptoKey, certificates: Uint8Array[], password: string, friendlyName: string): Promise<Buffer> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', privateKey));
  const key = forge.pki.privateKeyFromAsn1(forge.asn1.fromDer(pkcs8.toString('binary')));
  const chain = certificates.map((certificate) => forge.pki.certificateFromAsn1(forge.asn1.fromDer(Buffer.from(certificate).toString('binary'))));
  const pfx = forge.pkcs12.toPkcs12Asn1(key, chain, password, { algorithm: 'aes256', friendlyName });
  return Buffer.from(forge.asn1.toDer(pfx).getBytes(), 'binary');
}

/**
 * Certificate.sign() with sha256WithRSAEncryption carrying the NULL parameters RFC 4055 asks for. pkijs leaves them
 * out, and node-forge puts them back in the outer algorithm when it re-encodes a certificate for PKCS#12, so the
 * certificate in the .p12 would no longer be byte-equal to the one issued.
 */
async function signCertificate(certificate: pkijs.Certificate, privateKey: CryptoKey): Promise<void> {
  const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: '1.2.840.113549.1.1.11', algorithmParams: new asn1js.Null() });
  certificate.signature = algorithm;
  certificate.signatureAlgorithm = algorithm;
  certificate.tbsView = new Uint8Array(certificate.encodeTBS().toBER(false));
  certificate.signatureValue = new asn1js.BitString({ valueHex: await webcrypto.subtle.sign('RSASSA-PKCS1-v1_5', privateKey, certificate.tbsView) });
}

const generateRsaKeys = () =>
  webcrypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);

const der = (certificate: pkijs.Certificate) => new Uint8Array(certificate.toSchema().toBER(false));

const commonNameAttribute = (value: string) => new pkijs.AttributeTypeAndValue({ type: OID.commonName, value: new asn1js.Utf8String({ value }) });

const uri = (value: string) => new pkijs.GeneralName({ type: 6, value });

/** X.509 and CRL times carry whole seconds; dropping the milliseconds keeps the reported dates equal to the encoded ones. */
const wholeSeconds = (date: Date) => new Date(Math.floor(date.getTime() / 1000) * 1000);

/** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050. */
const timeOf = (date: Date) => new pkijs.Time({ type: date.getUTCFullYear() < 2050 ? 0 : 1, value: date });

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey bits. */
const keyIdentifierOf = (certificate: pkijs.Certificate) =>
  new Uint8Array(createHash('sha1').update(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest()).buffer;

/** Positive, 16 random bytes, leading byte below 0x80 so DER needs no sign padding. */
function randomSerial(): asn1js.Integer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return new asn1js.Integer({ valueHex: bytes });
}

const serialKey = (serial: asn1js.Integer) => Buffer.from(serial.valueBlock.valueHexView).toString('hex');

function extension(extnID: string, critical: boolean, value: { toSchema(): asn1js.BaseBlock } | asn1js.BaseBlock): pkijs.Extension {
  const schema = value instanceof asn1js.BaseBlock ? value : value.toSchema();
  return new pkijs.Extension({ extnID, critical, extnValue: schema.toBER(false) });
}

function keyUsageExtension({ bits, unused }: { bits: number; unused: number }): pkijs.Extension {
  return extension(OID.keyUsage, true, new asn1js.BitString({ valueHex: new Uint8Array([bits]), unusedBits: unused }));
}

/** CertStatus good [0] and unknown [2] are IMPLICIT NULL: the tag with no content. */
const implicitNull = (tagNumber: number) => new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber } });

/** good, or revoked [1] IMPLICIT RevokedInfo (revocationTime, no reason). */
const certStatus = (revokedAt: Date | undefined) =>
  revokedAt ? new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.GeneralizedTime({ valueDate: revokedAt })] }) : implicitNull(0);

function toPem(derBytes: Uint8Array): string {
  const lines = Buffer.from(derBytes).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
