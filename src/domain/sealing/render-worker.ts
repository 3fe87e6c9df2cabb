/**
 * A sealing render thread: draws a share card, or lays out a sealed PDF and signs it with the seal key
 * it is handed, from plain data, and hands the bytes back. No database; the network only for the
 * timestamp authorities a signature asks.
 */
import { isWorkerThread, move, transferableSymbol, valueSymbol } from 'piscina';
import { renderShareCard, type ShareCardInput } from './card.js';
import { renderSealedPdf } from './pdf.js';
import type { SealedPdfInput } from './pdf-input.js';
import { certificateHere, SealKey, type SigningMaterial } from './seal-key.js';
import { completeDegradedSeal, renewArchiveTimestamp, signSealedPdf, type CompletedPdf, type RenewedPdf, type SignedPdf, type SignSealedPdfOptions } from './sign.js';

/** What a seal signs with: the key's material and the signature's options. */
export type SealRequest = { key: SigningMaterial; options: SignSealedPdfOptions };

export type RenewArchiveOptions = { tsaUrls: string[]; tsaTimeoutMs?: number };

export type RenderTask =
  | { kind: 'card'; input: ShareCardInput }
  | { kind: 'pdf'; input: SealedPdfInput }
  | { kind: 'signed-pdf'; input: SealedPdfInput; seal: SealRequest }
  | { kind: 'renew-archive'; pdf: Uint8Array; options: RenewArchiveOptions }
  | { kind: 'complete-seal'; pdf: Uint8Array; options: RenewArchiveOptions }
  /** The service's start-up check of its seal key: the certificate (DER) of the PKCS#12. */
  | { kind: 'certificate'; p12: Uint8Array; password: string };

/** Seal keys as this thread opened them (by certificate fingerprint): the PKCS#12 is decoded once. */
const keys = new Map<string, SealKey>();

function keyOf({ p12, password, fingerprint }: SigningMaterial): SealKey {
  let key = keys.get(fingerprint);
  if (!key) keys.set(fingerprint, (key = new SealKey(p12, password, fingerprint, '', 'configured')));
  return key;
}

export default async function render(task: RenderTask): Promise<Uint8Array | SignedPdf | RenewedPdf | CompletedPdf> {
  switch (task.kind) {
    case 'card': {
      const png = await renderShareCard(task.input);
      return handedOver(png, png);
    }
    case 'pdf': {
      const pdf = await renderSealedPdf(task.input);
      return handedOver(pdf, pdf);
    }
    case 'signed-pdf': {
      const signed = await signSealedPdf(await renderSealedPdf(task.input), keyOf(task.seal.key), task.seal.options);
      return handedOver(signed, signed.bytes);
    }
    case 'renew-archive': {
      const renewed = await renewArchiveTimestamp(task.pdf, task.options);
      return handedOver(renewed, renewed.bytes);
    }
    case 'complete-seal': {
      const completed = await completeDegradedSeal(task.pdf, task.options);
      return handedOver(completed, completed.bytes);
    }
    case 'certificate':
      return certificateHere(task.p12, task.password);
  }
}

/**
 * On a render thread, the bytes' buffer is moved to the calling thread, not copied: the thread keeps
 * no second copy of each PDF and card as garbage, which the process would hold until the thread's
 * next collection. Only a buffer the bytes fill alone is moved (a slice of a shared pool is copied);
 * called inline, the value is returned as is.
 */
function handedOver<T>(value: T, bytes: Uint8Array): T {
  if (!isWorkerThread || !(bytes.buffer instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) return value;
  return move({ [transferableSymbol]: [bytes.buffer], [valueSymbol]: value as object }) as T;
}
