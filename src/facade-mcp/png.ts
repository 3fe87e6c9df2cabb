import type { ImageBlock } from './views.js';

/** Hosts get images at this many device pixels per SVG pixel (identicons are small). */
const SCALE = 2;

/**
 * Image blocks as PNG: MCP hosts must show PNG and JPEG, and many show no SVG, so the identicons
 * (SVG the service draws) are rendered to PNG here; SVG is left only to `compatibility_data_uri`.
 * The canvas library loads with the first image, not with the service.
 */
export async function asPng(images: readonly ImageBlock[]): Promise<ImageBlock[]> {
  if (!images.some((image) => image.mimeType === 'image/svg+xml')) return [...images];
  const { createCanvas, loadImage } = await import('canvas');
  return Promise.all(
    images.map(async (image) => {
      if (image.mimeType !== 'image/svg+xml') return image;
      const svg = Buffer.from(image.data, 'base64').toString('utf8');
      const width = Number(/<svg[^>]*\swidth="(\d+)"/.exec(svg)?.[1] ?? 0);
      const height = Number(/<svg[^>]*\sheight="(\d+)"/.exec(svg)?.[1] ?? 0);
      if (!width || !height) return image;
      // Drawn at the output size (the viewBox scales it), not scaled up from a small bitmap.
      const sized = svg.replace(/(<svg[^>]*\s)width="\d+"(\s[^>]*)height="\d+"/, `$1width="${width * SCALE}"$2height="${height * SCALE}"`);
      const picture = await loadImage(Buffer.from(sized));
      const canvas = createCanvas(width * SCALE, height * SCALE);
      canvas.getContext('2d').drawImage(picture, 0, 0);
      return { type: 'image' as const, mimeType: 'image/png', data: canvas.toBuffer('image/png').toString('base64') };
    }),
  );
}
