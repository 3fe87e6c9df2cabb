import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inlineRenderer, threadRenderer } from '../../src/domain/sealing/renderer.js';
import { loadSealKey } from '../../src/domain/sealing/seal-key.js';
import { poppler, sampleSealedPdfInput } from '../support/sealing.js';

const card = {
  title: 'Threaded card',
  reference: 'AGR-THRD-0001',
  status: 'sealed',
  sealedAt: new Date('2026-11-23T08:00:00Z'),
  recordType: 'agreement',
  documentIdenticon: { digestHex: 'c0ffee'.repeat(10) + 'beef', altText: 'Document identicon of AGR-THRD-0001' },
};

/** Sealing renders and signs on worker threads: the same bytes as on the calling thread, several at once. */
describe('Render threads', () => {
  let threads: ReturnType<typeof threadRenderer>;

  beforeAll(() => {
    threads = threadRenderer(2, { execArgv: ['--import', new URL('../support/child/register.mjs', import.meta.url).href] });
  });
  afterAll(async () => {
    await threads.close();
  });

  it('draws the share card and lays out the sealed PDF byte for byte as the calling thread does', async () => {
    const [threadedCard, threadedPdf] = await Promise.all([threads.card(card), threads.pdf(sampleSealedPdfInput())]);
    expect(Buffer.from(threadedCard).equals(Buffer.from(await inlineRenderer.card(card)))).toBe(true);
    expect(Buffer.from(threadedPdf).equals(Buffer.from(await inlineRenderer.pdf(sampleSealedPdfInput())))).toBe(true);
  });

  it('signs the sealed PDF on the thread: poppler accepts it, and it is the same file the calling thread signs', async () => {
    const workDir = await mkdtemp(path.join(tmpdir(), 'render-threads-'));
    try {
      const key = await loadSealKey({ production: false, localDir: path.join(workDir, 'local') });
      const input = sampleSealedPdfInput();
      const seal = { key: key.signingMaterial(), options: { reason: `Sealed ${input.reference}`, signingTime: input.sealedAt } };
      // Twice on the threads: the second reuses the signer the thread opened.
      const [first, second] = await Promise.all([threads.signedPdf(input, seal), threads.signedPdf(input, seal)]);
      expect(first).toMatchObject({ level: 'B-B', timestampUrl: null, timestampFailures: [] });
      const inline = await inlineRenderer.signedPdf(input, seal);
      expect(Buffer.from(first.bytes).equals(Buffer.from(inline.bytes))).toBe(true);
      expect(Buffer.from(second.bytes).equals(Buffer.from(inline.bytes))).toBe(true);
      const file = path.join(workDir, 'threaded.pdf');
      await writeFile(file, first.bytes);
      const { stdout } = await poppler('pdfsig', [file]);
      expect(stdout).toContain('Signature is Valid');
      expect(stdout).toContain('Total document signed');
    } finally {
      await rm(workDir, { recursive: true, force: true, maxRetries: 3 });
    }
  });

  it('renders several seals at once on its threads', async () => {
    const before = threads.completed();
    const cards = await Promise.all(Array.from({ length: 6 }, (_, i) => threads.card({ ...card, reference: `AGR-THRD-000${i}` })));
    expect(new Set(cards.map((png) => Buffer.from(png).toString('base64'))).size).toBe(6);
    expect(threads.completed() - before).toBe(6);
  });
});
