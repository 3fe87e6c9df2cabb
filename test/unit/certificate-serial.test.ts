import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { certificateSerial } from '../../src/domain/sealing/seal-key.js';

/** The development seal's certificate serial: positive, minimal, and readable by OpenSSL whatever the random bytes. */
describe('Certificate serial', () => {
  const { privateKey: pem } = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(pem);

  /** A certificate with this serial as forge encodes it, read back by OpenSSL. */
  function readBack(serial: string): X509Certificate {
    const certificate = forge.pki.createCertificate();
    certificate.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
    certificate.serialNumber = serial;
    certificate.validity.notBefore = new Date();
    certificate.validity.notAfter = new Date(Date.now() + 86_400_000);
    certificate.setSubject([{ name: 'commonName', value: 'serial test' }]);
    certificate.setIssuer([{ name: 'commonName', value: 'serial test' }]);
    certificate.sign(privateKey, forge.md.sha256.create());
    return new X509Certificate(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary'));
  }

  it.each([0x00, 0x01, 0x7f, 0x80, 0xff])('is 16 bytes with the first in 0x01-0x7f when the first random byte is %d', (first) => {
    const random = Buffer.alloc(16, 0xab);
    random[0] = first;
    const serial = certificateSerial(random);
    expect(serial).toMatch(/^[0-7][0-9a-f]{31}$/);
    expect(serial).not.toMatch(/^00/);
    expect(readBack(serial).serialNumber.toLowerCase()).toBe(serial);
  });

  it('was the cause of development seals OpenSSL could not read: the old form with a zero first random byte', () => {
    const old = `0${Buffer.alloc(15, 0).toString('hex')}`;
    expect(() => readBack(old)).toThrow();
  });
});
