import { createHash } from 'node:crypto';
import { createCanvas, loadImage } from 'canvas';
import { identiconPattern } from '../../src/domain/ceremonies/identicon.js';
import { renderShareCard, shareCardMetadata } from '../../src/domain/sealing/card.js';

const DIGEST = 'a3f09b1c7d2e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e';
const card = {
  title: 'Lease of the studio — Μίσθωση — Аренда',
  reference: 'AGR-7K3M-9QXD',
  status: 'sealed',
  sealedAt: new Date('2026-11-22T14:50:07Z'),
  recordType: 'agreement',
  documentIdenticon: { digestHex: DIGEST, altText: 'Document identicon of AGR-7K3M-9QXD' },
};

describe('Share card', () => {
  it('is a 1200x630 PNG whose metadata hash is the hash of its bytes', async () => {
    const png = await renderShareCard(card);
    const image = await loadImage(png);
    expect([image.width, image.height]).toEqual([1200, 630]);
    // An opaque card: 8-bit truecolour without alpha (IHDR colour type 2), small enough to share.
    expect([png.readUInt8(24), png.readUInt8(25)]).toEqual([8, 2]);
    expect(png.length).toBeLessThan(100_000);
    const generatedAt = new Date('2026-11-22T15:00:00Z');
    expect(shareCardMetadata(png, generatedAt, card.reference)).toEqual({
      filename: 'AGR-7K3M-9QXD-card.png',
      content_type: 'image/png',
      width: 1200,
      height: 630,
      hash: `sha256:${createHash('sha256').update(png).digest('hex')}`,
      generated_at: '2026-11-22T15:00:00.000Z',
      available: true,
    });
  });

  it('draws the same bytes for the same record', async () => {
    expect((await renderShareCard(card)).equals(await renderShareCard({ ...card }))).toBe(true);
  });

  it('draws each card whole on a canvas reused from earlier cards, several at once', async () => {
    const unsealed = { ...card, title: 'A much longer title that wraps onto several lines of the card before it is clamped with an ellipsis at the end', status: 'pending_signatures', sealedAt: null };
    const alone = [await renderShareCard(card), await renderShareCard(unsealed)];
    // In flight together and one after another, in both orders: each card is the one drawn alone.
    const together = await Promise.all([renderShareCard(unsealed), renderShareCard(card), renderShareCard(unsealed), renderShareCard(card)]);
    expect(together.map((png) => png.equals(alone[0]!) || (png.equals(alone[1]!) && 'unsealed'))).toEqual(['unsealed', true, 'unsealed', true]);
    expect((await renderShareCard(card)).equals(alone[0]!)).toBe(true);
  });

  it('shows the document identicon drawn from the shared pattern', async () => {
    const image = await loadImage(await renderShareCard(card));
    const canvas = createCanvas(1200, 630);
    const ctx = canvas.getContext('2d');
    ctx.drawImage(image, 0, 0);
    const pattern = identiconPattern(DIGEST);
    const cell = 300 / 6;
    pattern.cells.forEach((row, r) =>
      row.forEach((on, c) => {
        const [red, green, blue] = ctx.getImageData(820 + cell + c * cell, 118 + cell + r * cell, 1, 1).data;
        const expected = on ? pattern.foregroundRgb : pattern.backgroundRgb;
        expect([red, green, blue]).toEqual([expected.r, expected.g, expected.b]);
      }),
    );
  });

  it('draws an untitled, unsealed record with its type and status', async () => {
    const png = await renderShareCard({ ...card, title: '  ', status: 'pending_signatures', sealedAt: null, recordType: 'declaration' });
    const image = await loadImage(png);
    expect(image.width).toBe(1200);
    expect(png.equals(await renderShareCard(card))).toBe(false);
  });
});
