import { X509Certificate, generateKeyPair, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inspect, promisify } from 'node:util';
import type { P12Signer } from '@libpdf/core';

export interface LoadSealKeyOptions {
  /** SEAL_P12_PATH */
  p12Path?: string;
  /** SEAL_P12_PASSWORD */
  p12Password?: string;
  production: boolean;
  /** Where the development seal is kept (the project's .local/). */
  localDir: string;
  /** Names the development certificate: "<serviceName> development seal". */
  serviceName?: string;
  /**
   * Opens the PKCS#12 with its password and returns its certificate (DER); throws when it cannot.
   * Default: on this thread. The service opens it on a render thread, so that the thread answering
   * API calls never loads the PDF signing library (about 29 MiB resident).
   */
  certificateOf?: CertificateOf;
}

export type CertificateOf = (p12: Uint8Array, password: string) => Promise<Uint8Array>;

/** The certificate of a PKCS#12 opened with its password, on the calling thread. */
export const certificateHere: CertificateOf = async (p12, password) => {
  const { P12Signer } = await import('@libpdf/core');
  return (await P12Signer.create(p12, password)).certificate;
};

/** A seal key as a render thread receives it. */
export type SigningMaterial = { p12: Uint8Array; password: string; fingerprint: string };

/**
 * The service's seal key: PKCS#12 bytes and what shows which certificate seals. The password lives in
 * a private field: it never reaches JSON, toString or util.inspect, and only a signer is made from it.
 */
export class SealKey {
  readonly #password: string;
  #signer: Promise<P12Signer> | undefined;

  constructor(
    readonly p12: Uint8Array,
    password: string,
    /** 'sha256:<hex>' of the certificate's DER. */
    readonly fingerprint: string,
    readonly subject: string,
    readonly source: 'configured' | 'development',
  ) {
    this.#password = password;
  }

  /** The @libpdf/core signer for this key, made once (decoding the PKCS#12 costs ~5 ms a PDF). */
  createSigner(): Promise<P12Signer> {
    this.#signer ??= import('@libpdf/core').then(({ P12Signer }) => P12Signer.create(this.p12, this.#password)).catch((error: unknown) => {
      this.#signer = undefined;
      throw error;
    });
    return this.#signer;
  }

  /**
   * What a render thread signs with, handed over in-process (postMessage copies its enumerable
   * fields only): the thread opens its own signer from it. Logged or inspected by mistake, it shows
   * the fingerprint alone.
   */
  signingMaterial(): SigningMaterial {
    const material = { p12: this.p12, password: this.#password, fingerprint: this.fingerprint };
    Object.defineProperty(material, 'toJSON', { value: () => ({ fingerprint: this.fingerprint }), enumerable: false });
    Object.defineProperty(material, inspect.custom, { value: () => `SigningMaterial(${this.fingerprint})`, enumerable: false });
    return material;
  }

  toJSON(): { fingerprint: string; subject: string; source: string } {
    return { fingerprint: this.fingerprint, subject: this.subject, source: this.source };
  }

  toString(): string {
    return `SealKey(${this.subject}, ${this.fingerprint})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

const DEVELOPMENT_SEAL_DIR = 'seal';
const P12_FILE = 'seal.p12';
const PASSWORD_FILE = 'seal.password';

/**
 * Loads the seal key: the configured PKCS#12 file when SEAL_P12_PATH is set, otherwise (outside
 * production) a development seal made once under `<localDir>/seal/`. Production without a usable key
 * throws at start-up, naming the variables and never the password.
 */
export async function loadSealKey(options: LoadSealKeyOptions): Promise<SealKey> {
  const certificateOf = options.certificateOf ?? certificateHere;
  if (options.p12Path) return openConfigured(options.p12Path, options.p12Password ?? '', certificateOf);
  if (options.production) {
    throw new Error('SEAL_P12_PATH is not set: in production the service needs its seal key, a PKCS#12 file named by SEAL_P12_PATH and opened with SEAL_P12_PASSWORD.');
  }
  return developmentSeal(options.localDir, options.serviceName ?? 'Record signing service', certificateOf);
}

async function openConfigured(p12Path: string, password: string, certificateOf: CertificateOf): Promise<SealKey> {
  let bytes: Buffer;
  try {
    bytes = await readFile(p12Path);
  } catch (error) {
    throw new Error(`SEAL_P12_PATH (${p12Path}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}.`, { cause: error });
  }
  return open(bytes, password, 'configured', certificateOf, `SEAL_P12_PASSWORD does not open SEAL_P12_PATH (${p12Path}), or the file is not a PKCS#12 seal key`);
}

async function open(bytes: Uint8Array, password: string, source: SealKey['source'], certificateOf: CertificateOf, failure: string): Promise<SealKey> {
  let der: Uint8Array;
  try {
    der = await certificateOf(bytes, password);
  } catch {
    // The library's message is not repeated: nothing about the password may leave this function.
    throw new Error(`${failure}.`);
  }
  const certificate = new X509Certificate(der);
  const fingerprint = `sha256:${certificate.fingerprint256.replace(/:/g, '').toLowerCase()}`;
  return new SealKey(bytes, password, fingerprint, certificate.subject.replace(/\n/g, ', '), source);
}

async function developmentSeal(localDir: string, serviceName: string, certificateOf: CertificateOf): Promise<SealKey> {
  const directory = path.join(localDir, DEVELOPMENT_SEAL_DIR);
  const existing = await readDevelopmentSeal(directory, certificateOf);
  if (existing) return existing;

  // Made in a private temporary folder, then renamed into place in one step: when two processes race,
  // one rename wins (the other finds the folder not empty) and both read back the winner's key.
  await mkdir(localDir, { recursive: true });
  const staging = await mkdtemp(path.join(localDir, '.seal-'));
  try {
    const password = randomBytes(24).toString('base64url');
    const p12 = await createDevelopmentP12(`${serviceName} development seal`, password);
    await writeFile(path.join(staging, P12_FILE), p12, { mode: 0o600 });
    await writeFile(path.join(staging, PASSWORD_FILE), password, { mode: 0o600 });
    await rename(staging, directory).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const created = await readDevelopmentSeal(directory, certificateOf);
  if (!created) throw new Error(`The development seal under ${directory} could not be created.`);
  return created;
}

async function readDevelopmentSeal(directory: string, certificateOf: CertificateOf): Promise<SealKey | null> {
  let p12: Buffer;
  let password: string;
  try {
    [p12, password] = await Promise.all([readFile(path.join(directory, P12_FILE)), readFile(path.join(directory, PASSWORD_FILE), 'utf8')]);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return open(p12, password.trim(), 'development', certificateOf, `The development seal under ${directory} cannot be opened (delete the folder to make a new one)`);
}

/**
 * A certificate serial as the hex forge encodes as a DER INTEGER: 16 random bytes, the first in
 * 0x01-0x7f, so the number is positive and its encoding minimal. forge encodes the hex as it is given
 * (odd-length hex gains a leading zero byte), and OpenSSL refuses a serial whose encoding starts
 * with needless zero bytes: whole bytes and a non-zero first byte leave none.
 */
export function certificateSerial(random: Uint8Array): string {
  const bytes = Buffer.from(random);
  bytes[0] = (bytes[0]! & 0x7f) || 0x01;
  return bytes.toString('hex');
}

const generateRsaKeyPair = promisify(generateKeyPair);
const TEN_YEARS_MS = 10 * 365.25 * 24 * 3600 * 1000;

/** A self-signed RSA 2048 seal certificate (digitalSignature + nonRepudiation, ten years) as PKCS#12. */
async function createDevelopmentP12(commonName: string, password: string): Promise<Buffer> {
  const { privateKey: privatePem } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // Only a first development start makes a certificate: node-forge is loaded for it alone.
  const { default: forge } = await import('node-forge');
  const privateKey = forge.pki.privateKeyFromPem(privatePem);
  const publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = publicKey;
  certificate.serialNumber = certificateSerial(randomBytes(16));
  const now = new Date();
  certificate.validity.notBefore = new Date(now.getTime() - 60_000);
  certificate.validity.notAfter = new Date(now.getTime() + TEN_YEARS_MS);
  const name = [{ name: 'commonName', value: commonName }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(privateKey, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(privateKey, [certificate], password, { algorithm: 'aes256', friendlyName: commonName });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}
