import { createHash } from 'node:crypto';
import type { IdenticonData } from './entities.js';

const SIZE = 160;
const GRID = 5;

/**
 * A deterministic, symmetric 5x5 identicon drawn from a digest: the same digest always gives the
 * same picture, so a person can compare two identicons at a glance. Pure SVG, no fonts, no scripts.
 */
export function identiconFromDigest(kind: 'document' | 'signature', hexDigest: string, altText: string): IdenticonData {
  const bytes = Buffer.from(hexDigest, 'hex');
  const hue = ((bytes[0] ?? 0) * 360) / 256;
  const foreground = `hsl(${hue.toFixed(0)} 62% 42%)`;
  const background = `hsl(${((hue + 180) % 360).toFixed(0)} 40% 94%)`;
  const cell = SIZE / (GRID + 1);
  const offset = cell / 2;
  const rects: string[] = [];
  for (let row = 0; row < GRID; row += 1) {
    for (let col = 0; col < Math.ceil(GRID / 2); col += 1) {
      const bit = ((bytes[1 + row] ?? 0) >> col) & 1;
      if (!bit) continue;
      for (const x of new Set([col, GRID - 1 - col])) {
        rects.push(`<rect x="${(offset + x * cell).toFixed(2)}" y="${(offset + row * cell).toFixed(2)}" width="${cell.toFixed(2)}" height="${cell.toFixed(2)}"/>`);
      }
    }
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}" role="img">` +
    `<title>${escapeXml(altText)}</title><rect width="${SIZE}" height="${SIZE}" fill="${background}"/>` +
    `<g fill="${foreground}">${rects.join('')}</g></svg>`;
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
