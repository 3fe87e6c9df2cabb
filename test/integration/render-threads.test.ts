import { inlineRenderer, threadRenderer } from '../../src/domain/sealing/renderer.js';
import { sampleSealedPdfInput } from '../support/sealing.js';

const card = {
  title: 'Threaded card',
  reference: 'AGR-THRD-0001',
  status: 'sealed',
  sealedAt: new Date('2026-11-23T08:00:00Z'),
  recordType: 'agreement',
  documentIdenticon: { digestHex: 'c0ffee'.repeat(10) + 'beef', altText: 'Document identicon of AGR-THRD-0001' },
};

/** Sealing renders on worker threads: the same bytes as on the calling thread, several at once. */
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

  it('renders several seals at once on its threads', async () => {
    const before = threads.completed();
    const cards = await Promise.all(Array.from({ length: 6 }, (_, i) => threads.card({ ...card, reference: `AGR-THRD-000${i}` })));
    expect(new Set(cards.map((png) => Buffer.from(png).toString('base64'))).size).toBe(6);
    expect(threads.completed() - before).toBe(6);
  });
});
