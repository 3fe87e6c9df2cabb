import { createRequire } from 'node:module';
import path from 'node:path';

// The fonts ship through npm (dejavu-fonts-ttf), so a fresh machine needs no system font.
const fontDirectory = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');

export const FONT_FILES = {
  regular: path.join(fontDirectory, 'DejaVuSans.ttf'),
  bold: path.join(fontDirectory, 'DejaVuSans-Bold.ttf'),
  mono: path.join(fontDirectory, 'DejaVuSansMono.ttf'),
} as const;
