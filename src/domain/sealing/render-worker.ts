/**
 * A sealing render thread: draws a share card or lays out a sealed PDF from plain data and hands the
 * bytes back. Pure: no database, no keys, no network.
 */
import { renderShareCard, type ShareCardInput } from './card.js';
import { renderSealedPdf } from './pdf.js';
import type { SealedPdfInput } from './pdf-input.js';

export type RenderTask = { kind: 'card'; input: ShareCardInput } | { kind: 'pdf'; input: SealedPdfInput };

export default async function render(task: RenderTask): Promise<Uint8Array> {
  return task.kind === 'card' ? renderShareCard(task.input) : renderSealedPdf(task.input);
}
