import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/**
 * A software WebAuthn authenticator on node:crypto (P-256, ES256), standing in for a browser plus a
 * platform authenticator: it answers registration options with `none` or `packed` (self)
 * attestation and request options with assertions, in the JSON shape browsers hand to servers.
 */
export type StoredPasskey = { id: Buffer; privateKey: KeyObject; publicKey: KeyObject; rpId: string; userHandle: string; counter: number };

export type AuthenticatorOptions = { origin: string; attestation?: 'none' | 'packed'; userVerified?: boolean };

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export class SoftwareAuthenticator {
  readonly passkeys = new Map<string, StoredPasskey>();

  constructor(private readonly options: AuthenticatorOptions) {}

  /** navigator.credentials.create(): a new P-256 passkey for the options' RP and user. */
  register(creation: PublicKeyCredentialCreationOptionsJSON, overrides: { origin?: string } = {}): RegistrationResponseJSON {
    const rpId = creation.rp.id ?? new URL(this.options.origin).hostname;
    const excluded = new Set((creation.excludeCredentials ?? []).map((c) => c.id));
    if ([...this.passkeys.keys()].some((id) => excluded.has(id))) throw new Error('InvalidStateError: already registered');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = randomBytes(16);
    const passkey: StoredPasskey = { id, privateKey, publicKey, rpId, userHandle: creation.user.id, counter: 0 };
    this.passkeys.set(id.toString('base64url'), passkey);

    const clientDataJSON = this.clientData('webauthn.create', creation.challenge, overrides.origin);
    const attested = Buffer.concat([Buffer.alloc(16), u16(id.length), id, coseKey(publicKey)]);
    const authData = this.authenticatorData(rpId, FLAG_AT, passkey.counter, attested);
    const attStmt =
      this.options.attestation === 'packed'
        ? new Map<string, unknown>([['alg', -7], ['sig', sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey)]])
        : new Map<string, unknown>();
    const attestationObject = cbor(new Map<string, unknown>([['fmt', this.options.attestation ?? 'none'], ['attStmt', attStmt], ['authData', authData]]));
    return {
      id: id.toString('base64url'),
      rawId: id.toString('base64url'),
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get(): an ES256 assertion over authenticator data and the client data hash. */
  assert(request: PublicKeyCredentialRequestOptionsJSON, overrides: { origin?: string; counter?: number } = {}): AuthenticationResponseJSON {
    const allowed = (request.allowCredentials ?? []).map((c) => c.id);
    const key = allowed.find((id) => this.passkeys.has(id)) ?? (allowed.length === 0 ? [...this.passkeys.keys()][0] : undefined);
    const passkey = key ? this.passkeys.get(key) : undefined;
    if (!passkey) throw new Error('NotAllowedError: no matching passkey');
    passkey.counter = overrides.counter ?? passkey.counter + 1;
    const clientDataJSON = this.clientData('webauthn.get', request.challenge, overrides.origin);
    const authData = this.authenticatorData(request.rpId ?? passkey.rpId, 0, passkey.counter);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey);
    return {
      id: passkey.id.toString('base64url'),
      rawId: passkey.id.toString('base64url'),
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: passkey.userHandle,
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.options.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  private authenticatorData(rpId: string, extraFlags: number, counter: number, attested = Buffer.alloc(0)): Buffer {
    const flags = FLAG_UP | (this.options.userVerified === false ? 0 : FLAG_UV) | extraFlags;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(Buffer.from(rpId)), Buffer.from([flags]), count, attested]);
  }
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function u16(value: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16BE(value);
  return out;
}

/** The COSE_Key of an EC2 P-256 ES256 public key: {1: 2, 3: -7, -1: 1, -2: x, -3: y}. */
function coseKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return cbor(
    new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]),
  );
}

/** Just enough canonical CBOR for attestation objects: integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Map) {
    const entries = [...(value as Map<unknown, unknown>).entries()].flatMap(([k, v]) => [cbor(k), cbor(v)]);
    return Buffer.concat([head(5, value.size), ...entries]);
  }
  throw new Error(`cbor: unsupported value ${String(value)}`);
}

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.concat([Buffer.from([(major << 5) | 25]), u16(length)]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}
