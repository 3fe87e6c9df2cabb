import { readFile } from 'node:fs/promises';
import fontkit from '@pdf-lib/fontkit';
import { fill, PDFDocument, popGraphicsState, pushGraphicsState, rectangle, rgb, setFillingColor, type Color, type PDFFont, type PDFName, type PDFPage, type PDFRef } from 'pdf-lib/dist/pdf-lib.esm.min.js';
import QRCode from 'qrcode';
import { LRUCache } from 'lru-cache';
import { identiconPattern, type Rgb } from '../ceremonies/identicon.js';
import { FONT_FILES } from './fonts.js';
import { PALETTE } from './look.js';

export const PAGE = { width: 595.28, height: 841.89, left: 64, right: 64, top: 64, bottom: 78 } as const;
export const CONTENT_WIDTH = PAGE.width - PAGE.left - PAGE.right;

export function color({ r, g, b }: Rgb): Color {
  return rgb(r / 255, g / 255, b / 255);
}

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  mono: PDFFont;
}

let fontBytes: Promise<{ regular: Buffer; bold: Buffer; mono: Buffer }> | undefined;

type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];
const parsedFonts = new WeakMap<Uint8Array, ReturnType<Fontkit['create']>>();

/**
 * fontkit, parsing each font file once per process: pdf-lib parses the whole font again for every
 * document (about 60 ms a PDF for the three DejaVu files). Each document still makes its own
 * subset; the parsed font is only read.
 */
const parsedOnce: Fontkit = {
  create: (data, postscriptName) => {
    if (postscriptName !== undefined) return fontkit.create(data, postscriptName);
    let font = parsedFonts.get(data);
    if (font === undefined) parsedFonts.set(data, (font = subsetsEncodedOnce(layoutByWord(fontkit.create(data)))));
    return font;
  },
};

const PRINTABLE_ASCII = String.fromCharCode(...Array.from({ length: 95 }, (_, i) => 32 + i));
const HASH_TEXT = '0123456789abcdef sha256: Signature';

/** Subsets kept encoded per font, by their glyph list, least recently used first out. */
const ENCODED_SUBSETS = 32;

type Subset = ReturnType<FontkitFont['createSubset']>;
/** What pdf-lib reads of `Subset.encodeStream()`: the bytes, then the end (or an error). */
type EncodedStream = { on(event: 'data' | 'end' | 'error', listener: (value?: unknown) => void): EncodedStream };

/**
 * Each font subset encoded once per glyph list and thread. Encoding a subset (fontkit rebuilds the
 * font's tables) was a fifth of what a sealed PDF allocated, and documents of the same kind use the
 * same glyphs: with `embedFonts` putting the glyphs a font usually draws first, in a fixed order
 * (printable ASCII for the body's font, hash characters for the mono font), two PDFs whose text adds
 * no others ask for the same glyph list. The bytes are the ones fontkit made for it (encoding is
 * deterministic), handed to pdf-lib through the stream interface it reads; glyphs a subset adds while
 * encoding (composite glyphs' parts) come after every glyph id pdf-lib has already written.
 */
function subsetsEncodedOnce(font: FontkitFont): FontkitFont {
  const createSubset = font.createSubset.bind(font);
  const encoded = new LRUCache<string, Uint8Array>({ max: ENCODED_SUBSETS });
  font.createSubset = () => {
    const subset = createSubset();
    const encodeStream = subset.encodeStream.bind(subset);
    subset.encodeStream = () => {
      const key = (subset as Subset & { glyphs: number[] }).glyphs.join(',');
      const known = encoded.get(key);
      if (known) return replayed(known) as ReturnType<Subset['encodeStream']>;
      const stream = encodeStream();
      const parts: Uint8Array[] = [];
      stream.on('data', (part: Uint8Array) => parts.push(part));
      stream.on('end', () => encoded.set(key, Buffer.concat(parts)));
      return stream;
    };
    return subset;
  };
  return font;
}

/** Bytes already encoded, as a stream that gives them once its listeners are on (on the next tick, like fontkit's). */
function replayed(bytes: Uint8Array): EncodedStream {
  const listeners = new Map<string, (value?: unknown) => void>();
  const stream: EncodedStream = {
    on: (event, listener) => {
      listeners.set(event, listener);
      return stream;
    },
  };
  process.nextTick(() => {
    listeners.get('data')?.(bytes);
    listeners.get('end')?.();
  });
  return stream;
}

type FontkitFont = ReturnType<Fontkit['create']>;
type Glyphs = ReturnType<FontkitFont['layout']>['glyphs'];
/** Words laid out per font, kept until this many are held (then dropped at once and refilled). */
const LAID_OUT_WORDS = 20_000;

/**
 * Text shaped a word at a time: Latin, Greek and Cyrillic letters, punctuation, currency signs.
 * Anything else is shaped whole: fontkit reverses a right-to-left run as a whole (words included),
 * and shapes a line with the script of its first letters, which for combining marks or CJK can
 * choose other glyphs than a word's own script would.
 */
const BY_WORD = /^[\u0020-\u02FF\u0370-\u052F\u1E00-\u1FFF\u2000-\u206F\u20A0-\u20CF]*$/;

/** Hex digits, the hyphen and the colon: the characters of hashes (after their `sha256:`), digests and UUIDs. */
const HEX_CHARACTERS = '0123456789abcdef-:';
/** A word of two or more hex digits (and hyphens), after a prefix up to a colon if any (`sha256:`). */
const HEX_WORD = /^([^:]*:)?([0-9a-f-]{2,})$/;

/**
 * Whether this font shapes every pair of `characters` as the two characters' own glyphs (no ligature,
 * no contextual form among them: DejaVu's do not), so that a word of them is its characters' glyphs.
 * Checked once per font and thread (324 pairs), where the font is used.
 */
function shapedByCharacter(layout: FontkitFont['layout'], characters: string): boolean {
  const ids = (text: string) => layout(text).glyphs.map((glyph) => glyph.id).join(',');
  for (const a of characters) for (const b of characters) if (ids(a + b) !== `${ids(a)},${ids(b)}`) return false;
  return true;
}

/**
 * fontkit's layout (shaping: substitutions and positions) a word at a time, each word once per
 * process. pdf-lib shapes every line it draws or measures, and reads only the glyphs (never the
 * positions); shaping was a fifth of a sealed PDF's drawing time. Substitutions never cross a space,
 * so such a line's glyphs are its words' glyphs with the space's between them (the same glyphs,
 * pdf-layout.test.ts); other lines are shaped whole, as before. Words of hex digits (hashes: new on
 * every seal, and a fifth of what a seal allocated when shaped) are their characters' glyphs when the
 * font shapes those characters independently.
 */
export function layoutByWord(font: FontkitFont): FontkitFont {
  const layout = font.layout.bind(font);
  const words = new Map<string, Glyphs>();
  let hexByCharacter: boolean | undefined;
  const glyphsOf = (word: string): Glyphs => {
    let glyphs = words.get(word);
    if (glyphs !== undefined) return glyphs;
    // Hashes and ids (`sha256:…`, a UUID): new words on every seal, never worth keeping. A prefix up to
    // its colon is a word of its own (kept); the hex digits are their characters' glyphs.
    const hex = HEX_WORD.exec(word);
    if (hex && (hexByCharacter ??= shapedByCharacter(layout, HEX_CHARACTERS))) {
      const [, prefix = '', digits = ''] = hex;
      return [...(prefix ? glyphsOf(prefix) : []), ...[...digits].flatMap((character) => glyphsOf(character))];
    }
    if (words.size >= LAID_OUT_WORDS) words.clear();
    words.set(word, (glyphs = layout(word).glyphs));
    return glyphs;
  };
  font.layout = (text, features) => {
    // Features asked for, or text of other scripts: shaped as asked, whole.
    if (features !== undefined || !BY_WORD.test(text)) return layout(text, features);
    const glyphs: Glyphs = [];
    for (const part of text.split(/( )/)) if (part) glyphs.push(...glyphsOf(part));
    // pdf-lib reads only the glyphs of a run.
    return { glyphs } as ReturnType<FontkitFont['layout']>;
  };
  return font;
}

/** Subset-embeds DejaVu: only the glyphs used travel in the file. Fixed names keep output stable. */
export async function embedFonts(doc: PDFDocument): Promise<Fonts> {
  fontBytes ??= Promise.all([readFile(FONT_FILES.regular), readFile(FONT_FILES.bold), readFile(FONT_FILES.mono)]).then(([regular, bold, mono]) => ({ regular, bold, mono }));
  const bytes = await fontBytes;
  doc.registerFontkit(parsedOnce);
  const [regular, bold, mono] = await Promise.all([
    doc.embedFont(bytes.regular, { subset: true, customName: 'SEALAA+DejaVuSans' }),
    doc.embedFont(bytes.bold, { subset: true, customName: 'SEALAB+DejaVuSans-Bold' }),
    doc.embedFont(bytes.mono, { subset: true, customName: 'SEALAC+DejaVuSansMono' }),
  ]);
  // The glyphs each font usually draws first, in a fixed order: documents then share a glyph list (and
  // its encoding, `subsetsEncodedOnce`) unless their text adds others. The body's font gets printable
  // ASCII (a body in English draws most of it), and so does the bold font (titles and names: without
  // it, each title's letters in their own order made a glyph list of its own, and encoding the subset
  // anew cost about 3.5 ms a PDF); the hashes' font gets what hashes are written with.
  regular.encodeText(PRINTABLE_ASCII);
  bold.encodeText(PRINTABLE_ASCII);
  mono.encodeText(HASH_TEXT);
  return { regular, bold, mono };
}

export interface TextStyle {
  font: PDFFont;
  size: number;
  color: Color;
}

/**
 * What is known of a font across documents, by its name (the embedded fonts' names are fixed): the
 * characters it can draw and words' widths at size 1. Each document embeds its own PDFFont, so
 * keying by that object rebuilt a set of some 6,000 characters per font and per PDF.
 */
const fontFacts = new Map<string, { characters: Set<number>; widths: Map<string, number> }>();

function factsOf(font: PDFFont): { characters: Set<number>; widths: Map<string, number> } {
  let facts = fontFacts.get(font.name);
  if (!facts) fontFacts.set(font.name, (facts = { characters: new Set(font.getCharacterSet()), widths: new Map() }));
  return facts;
}

/** Width of a word at size 1, cached: shaping with fontkit is the slow part of long bodies. */
function unitWidth(font: PDFFont, text: string): number {
  const { widths } = factsOf(font);
  let width = widths.get(text);
  if (width === undefined) {
    width = font.widthOfTextAtSize(text, 1);
    if (widths.size >= LAID_OUT_WORDS) widths.clear();
    widths.set(text, width);
  }
  return width;
}

/**
 * The text with every character the font cannot draw shown as U+FFFD: a reader sees that something is
 * there (the exact text stays in the attached sealed metadata) instead of an empty box or nothing.
 */
export function drawableText(text: string, font: PDFFont): string {
  const drawable = factsOf(font).characters;
  const replacement = drawable.has(0xfffd) ? '\uFFFD' : '?';
  // Built only from the first character the font lacks: most text comes back as it was given.
  let out: string | undefined;
  let kept = 0;
  for (const char of text) {
    const shown = char === ' ' || drawable.has(char.codePointAt(0) ?? 0);
    if (out === undefined) {
      if (shown) {
        kept += char.length;
        continue;
      }
      out = text.slice(0, kept);
    }
    out += shown ? char : replacement;
  }
  return out ?? text;
}

/**
 * Breaks text into lines that fit `width`: paragraphs and blank lines are kept, words longer than a
 * line are cut between characters, tabs become spaces and characters the font cannot draw are replaced.
 */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const space = unitWidth(font, ' ') * size;
  const lines: string[] = [];
  const paragraphs = text.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n');
  for (const paragraph of paragraphs) {
    const clean = drawableText(paragraph, font);
    if (clean.trim() === '') {
      lines.push('');
      continue;
    }
    let line = '';
    let lineWidth = 0;
    for (const word of clean.split(/ +/).filter(Boolean)) {
      const wordWidth = unitWidth(font, word) * size;
      if (line && lineWidth + space + wordWidth <= width) {
        line = `${line} ${word}`;
        lineWidth += space + wordWidth;
        continue;
      }
      if (line) lines.push(line);
      let rest = word;
      let restWidth = wordWidth;
      while (restWidth > width) {
        // Cut by summed character widths (kerning inside a cut word does not matter).
        const chars = Array.from(rest);
        let cut = 0;
        let used = 0;
        while (cut < chars.length - 1 && used + unitWidth(font, chars[cut] ?? '') * size <= width) used += unitWidth(font, chars[cut++] ?? '') * size;
        cut = Math.max(cut, 1);
        lines.push(chars.slice(0, cut).join(''));
        rest = chars.slice(cut).join('');
        restWidth = unitWidth(font, rest) * size;
      }
      line = rest;
      lineWidth = restWidth;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * The page names each font once in its resources. pdf-lib's `drawText` adds the font to the page's
 * resources under a new random key on every call (a sealed PDF's two pages had 105 keys for its three
 * fonts), each key looked up among all the earlier ones; now a font's first key is used for all its text.
 */
function oneKeyPerFont(page: PDFPage): PDFPage {
  const keys = new Map<PDFRef, PDFName>();
  const newFontDictionary = page.node.newFontDictionary.bind(page.node);
  page.node.newFontDictionary = (tag, fontDictRef) => {
    let key = keys.get(fontDictRef);
    if (key === undefined) keys.set(fontDictRef, (key = newFontDictionary(tag, fontDictRef)));
    return key;
  };
  return page;
}

/** A cursor over pages: content flows down and onto a new page when the next block would not fit. */
export class PageFlow {
  page: PDFPage;
  y: number;
  readonly pages: PDFPage[] = [];

  constructor(private readonly doc: PDFDocument) {
    this.page = this.addPage();
    this.y = PAGE.height - PAGE.top;
  }

  addPage(): PDFPage {
    this.page = oneKeyPerFont(this.doc.addPage([PAGE.width, PAGE.height]));
    this.pages.push(this.page);
    this.y = PAGE.height - PAGE.top;
    return this.page;
  }

  /** Starts a new page unless `height` points still fit above the footer. */
  ensure(height: number): void {
    if (this.y - height < PAGE.bottom) this.addPage();
  }

  gap(height: number): void {
    this.y -= height;
  }

  line(text: string, style: TextStyle, options: { x?: number; lineHeight?: number } = {}): void {
    const lineHeight = options.lineHeight ?? style.size * 1.45;
    this.ensure(lineHeight);
    this.y -= lineHeight;
    if (text) this.page.drawText(drawableText(text, style.font), { x: options.x ?? PAGE.left, y: this.y + (lineHeight - style.size) * 0.35, size: style.size, font: style.font, color: style.color });
  }

  paragraph(text: string, style: TextStyle, options: { x?: number; width?: number; lineHeight?: number } = {}): void {
    const width = options.width ?? CONTENT_WIDTH - ((options.x ?? PAGE.left) - PAGE.left);
    for (const line of wrapText(text, style.font, style.size, width)) this.line(line, style, options);
  }

  rule(rgbColor: Color, thickness = 0.75): void {
    this.page.drawLine({ start: { x: PAGE.left, y: this.y }, end: { x: PAGE.width - PAGE.right, y: this.y }, thickness, color: rgbColor });
  }
}

/**
 * Filled rectangles as one path and one fill: `drawRectangle` writes a graphics state, a colour and a
 * fill for each (a QR code has a few hundred), and that made a tenth of a PDF's drawing time.
 */
function fillRectangles(page: PDFPage, ink: Color, rectangles: readonly (readonly [x: number, y: number, width: number, height: number])[]): void {
  if (rectangles.length === 0) return;
  page.pushOperators(pushGraphicsState(), setFillingColor(ink), ...rectangles.map(([x, y, width, height]) => rectangle(x, y, width, height)), fill(), popGraphicsState());
}

/** Draws the identicon from the shared pattern: the same cells and colours as the SVG and the card. */
export function drawIdenticon(page: PDFPage, digestHex: string, x: number, y: number, size: number): void {
  const pattern = identiconPattern(digestHex);
  const grid = pattern.cells.length;
  const cell = size / (grid + 1);
  page.drawRectangle({ x, y, width: size, height: size, color: color(pattern.backgroundRgb) });
  const cells = pattern.cells.flatMap((row, r) => row.flatMap((on, c) => (on ? [[x + cell / 2 + c * cell, y + size - cell / 2 - (r + 1) * cell, cell, cell] as const] : [])));
  fillRectangles(page, color(pattern.foregroundRgb), cells);
}

/** A QR code drawn as vector rectangles (one per run of dark modules), with its quiet zone. */
export function drawQrCode(page: PDFPage, text: string, x: number, y: number, size: number, ink: Color): void {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const quiet = 4;
  const unit = size / (modules.size + quiet * 2);
  page.drawRectangle({ x, y, width: size, height: size, color: rgb(1, 1, 1) });
  const runs: [number, number, number, number][] = [];
  for (let row = 0; row < modules.size; row += 1) {
    let col = 0;
    while (col < modules.size) {
      if (!modules.get(row, col)) {
        col += 1;
        continue;
      }
      const start = col;
      while (col < modules.size && modules.get(row, col)) col += 1;
      runs.push([x + (quiet + start) * unit, y + size - (quiet + row + 1) * unit, (col - start) * unit, unit]);
    }
  }
  fillRectangles(page, ink, runs);
}

export function style(font: PDFFont, size: number, rgbColor: Rgb): TextStyle {
  return { font, size, color: color(rgbColor) };
}

export function sectionHeading(flow: PageFlow, fonts: Fonts, text: string, keepWith = 60): void {
  flow.ensure(40 + keepWith);
  flow.gap(18);
  flow.line(text, style(fonts.bold, 13, PALETTE.ink), { lineHeight: 18 });
  flow.gap(4);
  flow.page.drawRectangle({ x: PAGE.left, y: flow.y, width: 28, height: 2, color: color(PALETTE.accent) });
  flow.gap(10);
}

