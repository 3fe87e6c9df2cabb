/**
 * `@record-signing/client` as an integrator gets it: built, packed with `npm pack`, and installed from
 * the tarball into an empty project. Its dependencies are packed from this checkout's node_modules and
 * installed with it (`--offline`: nothing is fetched), only those its package.json declares, so an
 * import it forgot to declare fails here.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const CLIENT = path.join(ROOT, 'packages/client');

type ClientModule = typeof import('../../packages/client/src/index.js');

export type InstalledClient = {
  /** The empty project it was installed into. */
  project: string;
  /** The package, imported from the project as an integrator's code would. */
  module: ClientModule;
  remove(): Promise<void>;
};

/** The folders of the packages `packageJson` depends on, and theirs, as this checkout resolves them. */
function dependencyFolders(packageJson: string, found = new Set<string>()): Set<string> {
  const require = createRequire(packageJson);
  const dependencies = Object.keys((require(packageJson) as { dependencies?: Record<string, string> }).dependencies ?? {});
  for (const name of dependencies) {
    const manifest = require.resolve(`${name}/package.json`, { paths: [path.dirname(packageJson), ROOT] });
    if (found.has(path.dirname(manifest))) continue;
    found.add(path.dirname(manifest));
    dependencyFolders(manifest, found);
  }
  return found;
}

export async function installPackedClient(): Promise<InstalledClient> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'client-package-'));
  const build = path.join(work, 'build');
  const packs = path.join(work, 'packs');
  const project = path.join(work, 'project');
  await mkdir(packs);
  await mkdir(project);
  await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(CLIENT, 'tsconfig.json'), '--outDir', path.join(build, 'dist')]);
  await copyFile(path.join(CLIENT, 'package.json'), path.join(build, 'package.json'));
  const npm = (args: string[], cwd: string) => run('npm', [...args, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd });
  await npm(['pack', '--pack-destination', packs], build);
  for (const folder of dependencyFolders(path.join(CLIENT, 'package.json'))) await npm(['pack', '--pack-destination', packs, folder], work);
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'integration', private: true, type: 'module' }));
  const tarballs = (await readdir(packs)).map((file) => path.join(packs, file));
  await npm(['install', '--offline', ...tarballs], project);
  // Its `exports` entry for `import`, as Node resolves `import '@record-signing/client'` in the project.
  const installed = path.join(project, 'node_modules/@record-signing/client');
  const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8')) as { exports: { '.': { import: string } } };
  const entry = path.join(installed, manifest.exports['.'].import);
  return { project, module: (await import(pathToFileURL(entry).href)) as ClientModule, remove: () => rm(work, { recursive: true, force: true }) };
}
