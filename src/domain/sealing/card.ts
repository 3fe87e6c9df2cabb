import { createHash } from 'node:crypto';
import { Canvas, createCanvas, registerFont, type CanvasRenderingContext2D } from 'canvas';
import { identiconPattern } from '../ceremonies/identicon.js';
import { FONT_FILES } from './fonts.js';
import { css, formatUtc, PALETTE, recordTypeLabel, SHARE_CARD_HEIGHT, SHARE_CARD_WIDTH } from './look.js';

export interface ShareCardInput {
  title: string;
  reference: string;
  status: string;
  sealedAt: Date | null;
  recordType: string;
  documentIdenticon: { digestHex: string; altText: string };
}

/** The spec's ExternalShareCardResponse fields. */
export interface ShareCardMetadata {
  filename: string;
  content_type: 'image/png';
  width: number;
  height: number;
  hash: string;
  generated_at: string;
  available: boolean;
}

// A family name of our own, so a system font of the same name can never stand in.
const FAMILY = 'SealCardSans';
let fontsRegistered = false;

function registerFonts(): void {
  if (fontsRegistered) return;
  registerFont(FONT_FILES.regular, { family: FAMILY });
  registerFont(FONT_FILES.bold, { family: FAMILY, weight: 'bold' });
  fontsRegistered = true;
}

/**
 * The public share card: title (or the record type), reference, status, sealed date and the document
 * identicon. It carries no participant data, since anyone holding the link may see it.
 */
export async function renderShareCard(input: ShareCardInput): Promise<Buffer> {
  registerFonts();
  const held = takeCanvas();
  try {
    draw(held.ctx, input);
    return await encodePng(held.canvas);
  } finally {
    idleCanvases.push(held);
  }
}

type CardCanvas = { canvas: Canvas; ctx: CanvasRenderingContext2D };

/**
 * Canvases not in use, kept for the next card: making one and its 24-bit context costs about 1.5 ms
 * (a 3 MB surface made, then remade for the pixel format). A thread holds at most as many as it has
 * cards in flight (one drawn while another's PNG is encoded), and draws every pixel of a card anew.
 */
const idleCanvases: CardCanvas[] = [];

function takeCanvas(): CardCanvas {
  return idleCanvases.pop() ?? newCanvas();
}

function newCanvas(): CardCanvas {
  const canvas = createCanvas(SHARE_CARD_WIDTH, SHARE_CARD_HEIGHT);
  // The card is opaque: 24-bit pixels, so the PNG carries no alpha channel to unpremultiply and encode.
  const ctx = canvas.getContext('2d', { pixelFormat: 'RGB24' });
  ctx.antialias = 'subpixel';
  return { canvas, ctx };
}

function draw(ctx: CanvasRenderingContext2D, input: ShareCardInput): void {
  // Every state the drawing sets (fonts, colours, alignment, line style) starts from the defaults.
  ctx.save();
  try {
    drawCard(ctx, input);
  } finally {
    ctx.restore();
  }
}

/** Where the status pill sits, and the header above the title. */
const LEFT = 80;
const STATUS_Y = 470;

/** What every card of one header and one status shows alike: drawn once per thread, copied under each card. */
type Background = { canvas: Canvas; pillWidth: number };
const backgrounds = new Map<string, Background>();
/** Backgrounds kept per thread (3 MB each): one per record type and status seen, in practice a handful. */
const BACKGROUNDS = 8;

/**
 * The paper, the accent band, the spaced header, the status pill, the rule and the caption, the same
 * on every card of a record type and status: about a third of a card's drawing (the header is drawn a
 * letter at a time). None of it overlaps what a card draws over it, so a card's pixels are the ones
 * drawing it all in one go gave.
 */
function backgroundOf(header: string, status: string): Background {
  const key = `${header}\n${status}`;
  let background = backgrounds.get(key);
  if (background) return background;
  const { canvas, ctx } = newCanvas();
  ctx.fillStyle = css(PALETTE.paper);
  ctx.fillRect(0, 0, SHARE_CARD_WIDTH, SHARE_CARD_HEIGHT);
  ctx.fillStyle = css(PALETTE.accent);
  ctx.fillRect(0, 0, SHARE_CARD_WIDTH, 12);
  ctx.textBaseline = 'alphabetic';
  ctx.font = `bold 22px ${FAMILY}`;
  drawSpaced(ctx, header, LEFT, 118, 3);
  const pillWidth = drawStatusPill(ctx, LEFT, STATUS_Y, status);
  ctx.strokeStyle = css(PALETTE.rule);
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(LEFT, 560);
  ctx.lineTo(SHARE_CARD_WIDTH - 80, 560);
  ctx.stroke();
  ctx.fillStyle = css(PALETTE.faint);
  ctx.font = `20px ${FAMILY}`;
  ctx.fillText('Compare this identicon with the one printed on the sealed document.', LEFT, 596);
  if (backgrounds.size >= BACKGROUNDS) backgrounds.clear();
  backgrounds.set(key, (background = { canvas, pillWidth }));
  return background;
}

function drawCard(ctx: CanvasRenderingContext2D, input: ShareCardInput): void {
  const textWidth = 640;
  const sealed = input.status === 'sealed';
  const header = (sealed ? `Sealed ${recordTypeLabel(input.recordType)}` : recordTypeLabel(input.recordType)).toUpperCase();
  const background = backgroundOf(header, input.status);
  ctx.drawImage(background.canvas, 0, 0);

  ctx.textBaseline = 'alphabetic';
  const title = input.title.trim() || recordTypeLabel(input.recordType);
  let fontSize = 60;
  let lines = wrap(ctx, title, textWidth, fontSize);
  while (lines.length > 3 && fontSize > 44) {
    fontSize -= 4;
    lines = wrap(ctx, title, textWidth, fontSize);
  }
  lines = clamp(ctx, lines, 3, textWidth);
  ctx.fillStyle = css(PALETTE.ink);
  ctx.font = `bold ${fontSize}px ${FAMILY}`;
  const lineHeight = Math.round(fontSize * 1.18);
  let y = 118 + 40 + lineHeight;
  for (const line of lines) {
    ctx.fillText(line, LEFT, y);
    y += lineHeight;
  }

  ctx.fillStyle = css(PALETTE.muted);
  ctx.font = `28px ${FAMILY}`;
  ctx.fillText(input.reference, LEFT, y + 14);

  ctx.font = `24px ${FAMILY}`;
  ctx.fillText(input.sealedAt ? formatUtc(input.sealedAt) : 'Not sealed yet', LEFT + background.pillWidth + 24, STATUS_Y + 33);

  drawIdenticon(ctx, input.documentIdenticon.digestHex, 820, 118, 300);
  ctx.fillStyle = css(PALETTE.muted);
  ctx.font = `20px ${FAMILY}`;
  ctx.textAlign = 'center';
  ctx.fillText(`Document identicon · ${input.documentIdenticon.digestHex.slice(0, 8)}`, 970, 460);
  ctx.textAlign = 'left';
}

/**
 * No per-row filter on flat colours, and zlib level 3: about 5 ms and 56 kB a card. Level 6 took
 * 9.5 ms for 45 kB; RGBA with every filter tried, 29 ms for 78 kB. A card is drawn once per seal,
 * on the sealing path, and a few kilobytes more for a link preview cost nobody anything.
 *
 * Encoded on libuv's thread pool (node-canvas's asynchronous `toBuffer`): the calling render thread
 * goes on with the next seal's PDF meanwhile, on a core the render thread alone left idle.
 */
function encodePng(canvas: Canvas): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    canvas.toBuffer(
      (error, png) => {
        if (error) reject(error);
        else resolve(png);
      },
      'image/png',
      { compressionLevel: 3, filters: Canvas.PNG_FILTER_NONE },
    ),
  );
}

export function shareCardMetadata(png: Uint8Array, generatedAt: Date, reference: string): ShareCardMetadata {
  return {
    filename: `${reference}-card.png`,
    content_type: 'image/png',
    width: SHARE_CARD_WIDTH,
    height: SHARE_CARD_HEIGHT,
    hash: `sha256:${createHash('sha256').update(png).digest('hex')}`,
    generated_at: generatedAt.toISOString(),
    available: true,
  };
}

/** The status pill (a tick when sealed, then the status); returns its width. */
function drawStatusPill(ctx: CanvasRenderingContext2D, x: number, y: number, status: string): number {
  const sealed = status === 'sealed';
  const label = status.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
  ctx.font = `bold 24px ${FAMILY}`;
  const pillHeight = 48;
  const iconSpace = sealed ? 34 : 0;
  const pillWidth = ctx.measureText(label).width + 44 + iconSpace;
  ctx.fillStyle = css(sealed ? PALETTE.accent : PALETTE.panel);
  roundedRect(ctx, x, y, pillWidth, pillHeight, pillHeight / 2);
  ctx.fill();
  if (sealed) {
    ctx.strokeStyle = css(PALETTE.paper);
    ctx.lineWidth = 4;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.beginPath();
    ctx.moveTo(x + 22, y + 25);
    ctx.lineTo(x + 30, y + 33);
    ctx.lineTo(x + 44, y + 16);
    ctx.stroke();
  }
  ctx.fillStyle = css(sealed ? PALETTE.paper : PALETTE.ink);
  ctx.fillText(label, x + 22 + iconSpace, y + 33);
  return pillWidth;
}

/** The identicon on a rounded tile: same cells and colours as the SVG and the PDF. */
export function drawIdenticon(ctx: CanvasRenderingContext2D, digestHex: string, x: number, y: number, size: number): void {
  const pattern = identiconPattern(digestHex);
  const grid = pattern.cells.length;
  const cell = size / (grid + 1);
  ctx.fillStyle = css(pattern.backgroundRgb);
  roundedRect(ctx, x, y, size, size, size * 0.08);
  ctx.fill();
  ctx.fillStyle = css(pattern.foregroundRgb);
  pattern.cells.forEach((row, r) =>
    row.forEach((on, c) => {
      // A hair of overlap so adjacent cells join without seams.
      if (on) ctx.fillRect(x + cell / 2 + c * cell, y + cell / 2 + r * cell, cell + 0.5, cell + 0.5);
    }),
  );
}

function roundedRect(ctx: CanvasRenderingContext2D, x: number, y: number, width: number, height: number, radius: number): void {
  ctx.beginPath();
  ctx.moveTo(x + radius, y);
  ctx.arcTo(x + width, y, x + width, y + height, radius);
  ctx.arcTo(x + width, y + height, x, y + height, radius);
  ctx.arcTo(x, y + height, x, y, radius);
  ctx.arcTo(x, y, x + width, y, radius);
  ctx.closePath();
}

function drawSpaced(ctx: CanvasRenderingContext2D, text: string, x: number, y: number, spacing: number): void {
  let cursor = x;
  for (const char of text) {
    ctx.fillText(char, cursor, y);
    cursor += ctx.measureText(char).width + spacing;
  }
}

function wrap(ctx: CanvasRenderingContext2D, text: string, width: number, fontSize: number): string[] {
  ctx.font = `bold ${fontSize}px ${FAMILY}`;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const candidate = line ? `${line} ${word}` : word;
    if (ctx.measureText(candidate).width <= width) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = word;
    while (ctx.measureText(line).width > width) {
      let cut = line.length - 1;
      while (cut > 1 && ctx.measureText(line.slice(0, cut)).width > width) cut -= 1;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line) lines.push(line);
  return lines;
}

function clamp(ctx: CanvasRenderingContext2D, lines: string[], max: number, width: number): string[] {
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max);
  let last = kept[max - 1] ?? '';
  while (last.length > 1 && ctx.measureText(`${last}…`).width > width) last = last.slice(0, -1);
  kept[max - 1] = `${last.trimEnd()}…`;
  return kept;
}
