import * as pkijs from 'pkijs';

/**
 * The WebCrypto engine handed to every pkijs call rather than set globally: the signing library sets
 * its own global engine, and a verification must not depend on what ran before it. WebCrypto is
 * `globalThis.crypto` in Node and in a browser alike (the verifier runs in both).
 */
let webEngine: pkijs.CryptoEngine | undefined;
export const pkijsEngine = (): pkijs.CryptoEngine => (webEngine ??= new pkijs.CryptoEngine({ name: 'webcrypto', crypto: globalThis.crypto }));

/** The bytes of a view as an ArrayBuffer of their own (what asn1js and WebCrypto take). */
export const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
