import { createHash } from 'node:crypto';
import type { IdenticonData } from './entities.js';

const SIZE = 160;
const GRID = 5;

export type Rgb = { r: number; g: number; b: number };

/** What every medium (SVG, PDF, PNG) draws for one digest: the same digest gives the same picture. */
export interface IdenticonPattern {
  hue: number;
  /** CSS colours, exactly as the SVG writes them. */
  foreground: string;
  background: string;
  /** The same colours in 0..255 RGB, for media without CSS (PDF, canvas). */
  foregroundRgb: Rgb;
  backgroundRgb: Rgb;
  /** cells[row][col], GRID x GRID, mirrored left to right. */
  cells: boolean[][];
}

/** The pure identicon: colours and a symmetric 5x5 grid of cells taken from the digest's first bytes. */
export function identiconPattern(hexDigest: string): IdenticonPattern {
  const bytes = Buffer.from(hexDigest, 'hex');
  const hue = ((bytes[0] ?? 0) * 360) / 256;
  const foregroundHue = Number(hue.toFixed(0));
  const backgroundHue = Number(((hue + 180) % 360).toFixed(0));
  const cells: boolean[][] = [];
  for (let row = 0; row < GRID; row += 1) {
    const line = new Array<boolean>(GRID).fill(false);
    for (let col = 0; col < Math.ceil(GRID / 2); col += 1) {
      const bit = ((bytes[1 + row] ?? 0) >> col) & 1;
      line[col] = bit === 1;
      line[GRID - 1 - col] = bit === 1;
    }
    cells.push(line);
  }
  return {
    hue,
    foreground: `hsl(${foregroundHue} 62% 42%)`,
    background: `hsl(${backgroundHue} 40% 94%)`,
    foregroundRgb: hslToRgb(foregroundHue, 0.62, 0.42),
    backgroundRgb: hslToRgb(backgroundHue, 0.4, 0.94),
    cells,
  };
}

/**
 * A deterministic, symmetric 5x5 identicon drawn from a digest: the same digest always gives the
 * same picture, so a person can compare two identicons at a glance. Pure SVG, no fonts, no scripts.
 */
export function identiconFromDigest(kind: 'document' | 'signature', hexDigest: string, altText: string): IdenticonData {
  const pattern = identiconPattern(hexDigest);
  const cell = SIZE / (GRID + 1);
  const offset = cell / 2;
  const rects: string[] = [];
  for (let row = 0; row < GRID; row += 1) {
    for (let col = 0; col < Math.ceil(GRID / 2); col += 1) {
      if (!pattern.cells[row]?.[col]) continue;
      for (const x of new Set([col, GRID - 1 - col])) {
        rects.push(`<rect x="${(offset + x * cell).toFixed(2)}" y="${(offset + row * cell).toFixed(2)}" width="${cell.toFixed(2)}" height="${cell.toFixed(2)}"/>`);
      }
    }
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}" role="img">` +
    `<title>${escapeXml(altText)}</title><rect width="${SIZE}" height="${SIZE}" fill="${pattern.background}"/>` +
    `<g fill="${pattern.foreground}">${rects.join('')}</g></svg>`;
  return { kind, digest: `sha256:${hexDigest}`, shortHash: hexDigest.slice(0, 8), width: SIZE, height: SIZE, altText, svg };
}

export function sha256Hex(parts: string[]): string {
  return createHash('sha256').update(parts.join('\n')).digest('hex');
}

export function svgDataUri(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const h = hue / 60;
  const x = chroma * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] = h < 1 ? [chroma, x, 0] : h < 2 ? [x, chroma, 0] : h < 3 ? [0, chroma, x] : h < 4 ? [0, x, chroma] : h < 5 ? [x, 0, chroma] : [chroma, 0, x];
  const m = lightness - chroma / 2;
  const to255 = (v: number) => Math.round((v + m) * 255);
  return { r: to255(r), g: to255(g), b: to255(b) };
}
