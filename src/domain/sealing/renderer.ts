// node-canvas must be loaded on the main thread before a worker thread loads it, or the process
// crashes (SIGSEGV) when a render thread starts: its native module is loaded here, its drawing code is not.
import 'canvas';
import { Piscina } from 'piscina';
import type { ShareCardInput } from './card.js';
import type { SealedPdfInput } from './pdf-input.js';
import type { RenderTask, RenewArchiveOptions, SealRequest } from './render-worker.js';
import type { CompletedPdf, RenewedPdf, SignedPdf } from './sign.js';
import type { Tracing } from '../shared/tracing.js';

/** The drawing and signing code (canvas, pdf-lib, fonts, @libpdf/core), loaded on the calling thread only when it draws there. */
const render = async <T extends Uint8Array | SignedPdf | RenewedPdf | CompletedPdf>(task: RenderTask): Promise<T> => (await import('./render-worker.js')).default(task) as Promise<T>;

/** Draws what a seal becomes (card PNG, PDF, the PDF signed with the seal) from plain data. */
export interface SealRenderer {
  card(input: ShareCardInput): Promise<Uint8Array>;
  pdf(input: SealedPdfInput): Promise<Uint8Array>;
  signedPdf(input: SealedPdfInput, seal: SealRequest): Promise<SignedPdf>;
  /** Adds a DSS update and a new document timestamp to a B-LTA sealed PDF (sign.ts's renewArchiveTimestamp). */
  renewArchive(pdf: Uint8Array, options: RenewArchiveOptions): Promise<RenewedPdf>;
  /** Completes a degraded seal: a time proof if it has none, validation data and a document timestamp (sign.ts's completeDegradedSeal). */
  completeSeal(pdf: Uint8Array, options: RenewArchiveOptions): Promise<CompletedPdf>;
  /** Opens a PKCS#12 seal key (its password checked) and returns its certificate, DER (seal-key.ts's `certificateOf`). */
  certificate(p12: Uint8Array, password: string): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** On the calling thread: for tools and tests that drive one seal at a time. */
export const inlineRenderer: SealRenderer = {
  card: (input) => render({ kind: 'card', input }),
  pdf: (input) => render({ kind: 'pdf', input }),
  signedPdf: (input, seal) => render({ kind: 'signed-pdf', input, seal }),
  renewArchive: (pdf, options) => render({ kind: 'renew-archive', pdf, options }),
  completeSeal: (pdf, options) => render({ kind: 'complete-seal', pdf, options }),
  certificate: (p12, password) => render({ kind: 'certificate', p12, password }),
  close: async () => undefined,
};

/**
 * A render thread's V8 heap. A thread lives on about 25 MiB, and what it draws is bounded (a body of
 * at most 7,000 characters): a limit of its own, with room for four times its live heap, keeps a busy
 * thread's heap pages from growing as far as the process's limits (a 256 MiB old generation) would
 * let them, which is resident memory a sealing instance does not need (bench/README.md measures both).
 * The young generation's size applies only when the process sets none: V8's `--max-semi-space-size`
 * (2 MiB under `npm start`) wins over a worker's limits, at the same seals/s and CPU a seal.
 */
const RENDER_THREAD_HEAP = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 12 } as const;

/**
 * On worker threads (piscina): drawing a card (~5 ms), laying out a PDF (~25 ms) and signing it never
 * hold the event loop that answers API calls, and several seals render at once on several cores.
 * Threads start on first use and stop when idle.
 */
export function threadRenderer(threads: number, options: { execArgv?: string[] } = {}): SealRenderer & { completed: () => number } {
  // Running from the TypeScript sources (tests), the worker is the .ts file and needs the caller's loader (execArgv).
  const source = import.meta.url.endsWith('.ts') ? './render-worker.ts' : './render-worker.js';
  const pool = new Piscina<RenderTask, Uint8Array | SignedPdf | RenewedPdf>({
    filename: new URL(source, import.meta.url).href,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 30_000,
    // Two tasks a thread: while one waits on libuv's pool (a card's PNG encoding, a signature's RSA),
    // the thread draws the other instead of idling.
    concurrentTasksPerWorker: 2,
    resourceLimits: RENDER_THREAD_HEAP,
    ...(options.execArgv ? { execArgv: options.execArgv } : {}),
  });
  return {
    card: (input) => pool.run({ kind: 'card', input }) as Promise<Uint8Array>,
    pdf: (input) => pool.run({ kind: 'pdf', input }) as Promise<Uint8Array>,
    // Signed there too: the signature's CPU (about 7 ms a PDF) leaves the thread that answers API calls.
    signedPdf: (input, seal) => pool.run({ kind: 'signed-pdf', input, seal }) as Promise<SignedPdf>,
    renewArchive: (pdf, options) => pool.run({ kind: 'renew-archive', pdf, options }) as Promise<RenewedPdf>,
    completeSeal: (pdf, options) => pool.run({ kind: 'complete-seal', pdf, options }) as Promise<CompletedPdf>,
    // At start-up: the thread then stops when idle, and the API thread never loads @libpdf/core.
    certificate: (p12, password) => pool.run({ kind: 'certificate', p12, password }) as Promise<Uint8Array>,
    close: () => pool.close({ force: true }),
    /** Tasks the threads have finished. */
    completed: () => pool.completed,
  };
}

/** The renderer with a span around each drawing: a render thread's work, seen from the trace of the job that asked for it. */
export function tracedRenderer<R extends SealRenderer>(renderer: R, tracing: Tracing): R {
  const span = <T>(kind: string, work: () => Promise<T>) => tracing.inSpan(`sealing render ${kind}`, { 'sealing.render.kind': kind }, work);
  return {
    ...renderer,
    card: (input) => span('card', () => renderer.card(input)),
    pdf: (input) => span('pdf', () => renderer.pdf(input)),
    signedPdf: (input, seal) => span('signed-pdf', () => renderer.signedPdf(input, seal)),
    renewArchive: (pdf, options) => span('renew-archive', () => renderer.renewArchive(pdf, options)),
    completeSeal: (pdf, options) => span('complete-seal', () => renderer.completeSeal(pdf, options)),
  };
}
