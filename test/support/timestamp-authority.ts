import { createHash, webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { IssuedIdentity } from './certificate-authority.js';

type CryptoKey = webcrypto.CryptoKey;

const OID = {
  commonName: '2.5.4.3',
  extKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
};

export interface TimestampAuthorityServer {
  url: string;
  /** Requests answered with a token. */
  granted: number;
  /** While true, a 'grant' authority answers 500 (it is down). */
  down: boolean;
  close(): Promise<void>;
}

type Behaviour = 'grant' | 'http-500' | 'hang';

export interface TimestampAuthorityOptions {
  /** Sign with a CA-issued identity (its chain travels in the token) so LTV can build and check the TSA's path. */
  identity?: IssuedIdentity;
  /** genTime source, for tokens dated other than now. */
  clock?: () => Date;
}

/**
 * A small RFC 3161 timestamp authority on 127.0.0.1 (pkijs, a throwaway self-signed RSA key unless given an
 * identity), or one that fails in a chosen way: answers 500, or never answers.
 */
export async function startTimestampAuthority(behaviour: Behaviour, options: TimestampAuthorityOptions = {}): Promise<TimestampAuthorityServer> {
  const signer = behaviour === 'grant' ? (options.identity ? fromIssuedIdentity(options.identity) : await createTsaIdentity()) : null;
  const clock = options.clock ?? (() => new Date());
  let serial = 0;
  const state = { granted: 0, down: false };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (behaviour === 'hang') return;
      if (behaviour === 'http-500' || !signer || state.down) {
        response.writeHead(500).end('unavailable');
        return;
      }
      serial += 1;
      grant(signer, Buffer.concat(chunks), serial, clock())
        .then((body) => {
          state.granted += 1;
          response.writeHead(200, { 'Content-Type': 'application/timestamp-reply' }).end(Buffer.from(body));
        })
        .catch(() => response.writeHead(400).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    get granted() {
      return state.granted;
    },
    get down() {
      return state.down;
    },
    set down(down: boolean) {
      state.down = down;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface TsaIdentity {
  certificate: pkijs.Certificate;
  /** Issuer certificates, nearest first. */
  chain: pkijs.Certificate[];
  privateKey: CryptoKey;
}

const fromIssuedIdentity = ({ certificate, chain, privateKey }: IssuedIdentity): TsaIdentity => ({
  certificate: pkijs.Certificate.fromBER(certificate),
  chain: chain.map((issuer) => pkijs.Certificate.fromBER(issuer)),
  privateKey,
});

async function createTsaIdentity(): Promise<TsaIdentity> {
  const keys = await webcrypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  certificate.serialNumber = new asn1js.Integer({ value: 1 });
  const name = new pkijs.AttributeTypeAndValue({ type: OID.commonName, value: new asn1js.Utf8String({ value: 'Test timestamp authority' }) });
  certificate.issuer.typesAndValues.push(name);
  certificate.subject.typesAndValues.push(name);
  certificate.notBefore.value = new Date(Date.now() - 86_400_000);
  certificate.notAfter.value = new Date(Date.now() + 365 * 86_400_000);
  const usage = new pkijs.ExtKeyUsage({ keyPurposes: [OID.timeStamping] });
  certificate.extensions = [new pkijs.Extension({ extnID: OID.extKeyUsage, critical: true, extnValue: usage.toSchema().toBER(false), parsedValue: usage })];
  await certificate.subjectPublicKeyInfo.importKey(keys.publicKey);
  await certificate.sign(keys.privateKey, 'SHA-256');
  return { certificate, chain: [], privateKey: keys.privateKey };
}

async function grant({ certificate, chain, privateKey }: TsaIdentity, requestBytes: Buffer, serial: number, genTime: Date): Promise<ArrayBuffer> {
  const request = pkijs.TimeStampReq.fromBER(new Uint8Array(requestBytes));
  const info = new pkijs.TSTInfo({
    version: 1,
    policy: '1.3.6.1.4.1.55555.1',
    messageImprint: request.messageImprint,
    serialNumber: new asn1js.Integer({ value: serial }),
    genTime,
    ...(request.nonce ? { nonce: request.nonce } : {}),
  });
  const infoDer = info.toSchema().toBER(false);
  const certificateDer = certificate.toSchema().toBER(false);
  const essCertIdV2 = new asn1js.Sequence({
    value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: createHash('sha256').update(new Uint8Array(certificateDer)).digest() })] })] })],
  });
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.tstInfo, eContent: new asn1js.OctetString({ valueHex: infoDer }) }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.tstInfo })] }),
            new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(new Uint8Array(infoDer)).digest() })] }),
            new pkijs.Attribute({ type: OID.signingCertificateV2, values: [essCertIdV2] }),
          ],
        }),
      }),
    ],
    certificates: [certificate, ...chain],
  });
  await signedData.sign(privateKey, 0, 'SHA-256');
  const token = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }), timeStampToken: token }).toSchema().toBER(false);
}
