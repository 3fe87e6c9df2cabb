/**
 * Passkeys through the browser's WebAuthn. The API sends the options as JSON (base64url fields, as
 * the WebAuthn Level 3 JSON forms); the browser parses them, and the credential goes back as JSON.
 */
type JsonCredential = { [key: string]: unknown };

type PublicKeyCredentialStatics = {
  parseCreationOptionsFromJSON?: (options: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (options: unknown) => PublicKeyCredentialRequestOptions;
};

export function passkeysSupported(): boolean {
  return typeof window.PublicKeyCredential === 'function' && typeof navigator.credentials?.create === 'function';
}

/** Runs registration or assertion, depending on what the options ask for (`user` is only in creation options). */
export async function answerPasskeyChallenge(challengeJson: string): Promise<JsonCredential> {
  const options = JSON.parse(challengeJson) as { user?: unknown };
  const statics = window.PublicKeyCredential as unknown as PublicKeyCredentialStatics;
  const credential =
    'user' in options
      ? await navigator.credentials.create({ publicKey: statics.parseCreationOptionsFromJSON?.(options) ?? decodeCreation(options) })
      : await navigator.credentials.get({ publicKey: statics.parseRequestOptionsFromJSON?.(options) ?? decodeRequest(options) });
  if (!(credential instanceof PublicKeyCredential)) throw new Error('The browser returned no passkey.');
  return toJson(credential);
}

function fromBase64Url(value: string): ArrayBuffer {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(value.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
  return bytes.buffer;
}

function toBase64Url(buffer: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type Descriptor = { id: string; type: 'public-key'; transports?: AuthenticatorTransport[] };

function decodeDescriptors(list: unknown): PublicKeyCredentialDescriptor[] | undefined {
  return Array.isArray(list) ? (list as Descriptor[]).map((item) => ({ ...item, id: fromBase64Url(item.id) })) : undefined;
}

/** Fallbacks for browsers without the JSON parsers. */
function decodeCreation(raw: object): PublicKeyCredentialCreationOptions {
  const options = raw as PublicKeyCredentialCreationOptions & { challenge: string; user: { id: string; name: string; displayName: string }; excludeCredentials?: unknown };
  return {
    ...options,
    challenge: fromBase64Url(options.challenge),
    user: { ...options.user, id: fromBase64Url(options.user.id) },
    excludeCredentials: decodeDescriptors(options.excludeCredentials),
  };
}

function decodeRequest(raw: object): PublicKeyCredentialRequestOptions {
  const options = raw as PublicKeyCredentialRequestOptions & { challenge: string; allowCredentials?: unknown };
  return { ...options, challenge: fromBase64Url(options.challenge), allowCredentials: decodeDescriptors(options.allowCredentials) };
}

function toJson(credential: PublicKeyCredential): JsonCredential {
  const withJson = credential as unknown as { toJSON?: () => JsonCredential };
  if (typeof withJson.toJSON === 'function') return withJson.toJSON();
  const response = credential.response;
  const common = { id: credential.id, rawId: toBase64Url(credential.rawId), type: credential.type, clientExtensionResults: {} };
  if (response instanceof AuthenticatorAttestationResponse) {
    return {
      ...common,
      response: {
        clientDataJSON: toBase64Url(response.clientDataJSON),
        attestationObject: toBase64Url(response.attestationObject),
        transports: response.getTransports?.() ?? [],
      },
    };
  }
  const assertion = response as AuthenticatorAssertionResponse;
  return {
    ...common,
    response: {
      clientDataJSON: toBase64Url(assertion.clientDataJSON),
      authenticatorData: toBase64Url(assertion.authenticatorData),
      signature: toBase64Url(assertion.signature),
      ...(assertion.userHandle ? { userHandle: toBase64Url(assertion.userHandle) } : {}),
    },
  };
}
