/**
 * Node module hooks that run the project's TypeScript in a child process the way jest does (swc,
 * legacy decorators with metadata): `.js` specifiers of relative imports resolve to the `.ts` file.
 * For tests that need a second, real process (one they can kill).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from '@swc/core';
import { swcOptions } from './swc-options.mjs';

export async function resolve(specifier, context, next) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const candidate = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
    if (existsSync(fileURLToPath(candidate))) return next(candidate.href, context);
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const filename = fileURLToPath(url);
  const { code } = await transform(await readFile(filename, 'utf8'), { ...swcOptions, filename });
  return { format: 'module', source: code, shortCircuit: true };
}
