import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCanvas, loadImage } from 'canvas';
import { PDFDocument } from 'pdf-lib/dist/pdf-lib.esm.min.js';
import { identiconFromDigest, identiconPattern, type IdenticonPattern, type Rgb } from '../../src/domain/ceremonies/identicon.js';
import { drawIdenticon as drawOnCanvas } from '../../src/domain/sealing/card.js';
import { drawIdenticon as drawOnPdf } from '../../src/domain/sealing/pdf-layout.js';
import { poppler } from '../support/sealing.js';

const DIGEST = 'a3f09b1c7d2e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e';
const SIZE = 120;
const CELL = SIZE / 6;

/** The colour at the centre of every cell of a SIZE x SIZE identicon image, compared to the pattern. */
function expectCellsMatch(pixels: Uint8ClampedArray, width: number, pattern: IdenticonPattern): void {
  const near = (at: number, colour: Rgb) => Math.abs(pixels[at]! - colour.r) <= 3 && Math.abs(pixels[at + 1]! - colour.g) <= 3 && Math.abs(pixels[at + 2]! - colour.b) <= 3;
  pattern.cells.forEach((row, r) =>
    row.forEach((on, c) => {
      const x = Math.round(CELL / 2 + c * CELL + CELL / 2);
      const y = Math.round(CELL / 2 + r * CELL + CELL / 2);
      const at = (y * width + x) * 4;
      expect({ r, c, matches: near(at, on ? pattern.foregroundRgb : pattern.backgroundRgb) }).toEqual({ r, c, matches: true });
    }),
  );
}

describe('Identicon', () => {
  const pattern = identiconPattern(DIGEST);

  it('draws the same SVG as before the pattern was shared', () => {
    expect(identiconFromDigest('document', DIGEST, 'Alt <x> & "y"').svg).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160" viewBox="0 0 160 160" role="img"><title>Alt &lt;x&gt; &amp; &quot;y&quot;</title><rect width="160" height="160" fill="hsl(49 40% 94%)"/><g fill="hsl(229 62% 42%)"><rect x="13.33" y="40.00" width="26.67" height="26.67"/><rect x="120.00" y="40.00" width="26.67" height="26.67"/><rect x="40.00" y="40.00" width="26.67" height="26.67"/><rect x="93.33" y="40.00" width="26.67" height="26.67"/><rect x="66.67" y="66.67" width="26.67" height="26.67"/><rect x="13.33" y="93.33" width="26.67" height="26.67"/><rect x="120.00" y="93.33" width="26.67" height="26.67"/><rect x="66.67" y="93.33" width="26.67" height="26.67"/><rect x="40.00" y="120.00" width="26.67" height="26.67"/><rect x="93.33" y="120.00" width="26.67" height="26.67"/><rect x="66.67" y="120.00" width="26.67" height="26.67"/></g></svg>',
    );
  });

  it('is a mirrored 5x5 pattern whose cells are the SVG squares', () => {
    expect(pattern.cells).toHaveLength(5);
    for (const row of pattern.cells) expect(row).toEqual([...row].reverse());
    const squares = identiconFromDigest('signature', DIGEST, 'x').svg.match(/<rect x=/g) ?? [];
    expect(squares).toHaveLength(pattern.cells.flat().filter(Boolean).length);
    expect(identiconFromDigest('signature', DIGEST, 'x').svg).toContain(`fill="${pattern.foreground}"`);
  });

  it('paints the same cells and colours on the share card canvas', () => {
    const canvas = createCanvas(SIZE, SIZE);
    const ctx = canvas.getContext('2d');
    drawOnCanvas(ctx, DIGEST, 0, 0, SIZE);
    expectCellsMatch(ctx.getImageData(0, 0, SIZE, SIZE).data, SIZE, pattern);
  });

  it('paints the same cells and colours in the PDF', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'identicon-'));
    try {
      const doc = await PDFDocument.create();
      drawOnPdf(doc.addPage([SIZE, SIZE]), DIGEST, 0, 0, SIZE);
      await writeFile(path.join(dir, 'identicon.pdf'), await doc.save());
      const { code } = await poppler('pdftoppm', ['-r', '72', '-png', '-singlefile', path.join(dir, 'identicon.pdf'), path.join(dir, 'identicon')]);
      expect(code).toBe(0);
      const image = await loadImage(await readFile(path.join(dir, 'identicon.png')));
      expect([image.width, image.height]).toEqual([SIZE, SIZE]);
      const canvas = createCanvas(SIZE, SIZE);
      const ctx = canvas.getContext('2d');
      ctx.drawImage(image, 0, 0);
      expectCellsMatch(ctx.getImageData(0, 0, SIZE, SIZE).data, SIZE, pattern);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
