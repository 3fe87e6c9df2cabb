/** `@record-signing/client` as an integrator gets it: packed and installed into an empty project (packed-package.ts). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { installPackedPackage } from './packed-package.js';

type ClientModule = typeof import('../../packages/client/src/index.js');

export type InstalledClient = {
  /** The empty project it was installed into. */
  project: string;
  /** The package, imported from the project as an integrator's code would. */
  module: ClientModule;
  remove(): Promise<void>;
};

export async function installPackedClient(): Promise<InstalledClient> {
  const { project, folder, remove } = await installPackedPackage('client');
  // Its `exports` entry for `import`, as Node resolves `import '@record-signing/client'` in the project.
  const manifest = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { exports: { '.': { import: string } } };
  const entry = path.join(folder, manifest.exports['.'].import);
  return { project, module: (await import(pathToFileURL(entry).href)) as ClientModule, remove };
}
