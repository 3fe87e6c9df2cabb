/**
 * A package of packages/ as a stranger gets it: built, packed with `npm pack`, and installed by npm into
 * an empty project. Its dependencies are packed from this checkout's node_modules, only those its
 * package.json declares (and theirs), so an import it forgot to declare fails here. npm installs from a
 * registry of those tarballs on 127.0.0.1 with a fresh cache: nothing is fetched from the network, and
 * npm resolves the declared ranges itself, nesting a dependency's second version where needed (tarballs
 * named on the command line all land at the top level, where two versions of one package cannot).
 * `--ignore-scripts`: nothing the packages ship runs.
 */
import { execFile } from 'node:child_process';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

export type InstalledPackage = {
  /** The empty project it was installed into. */
  project: string;
  /** The installed package's folder, under the project's node_modules. */
  folder: string;
  /** The registry on 127.0.0.1 serving the package and its dependencies, until `remove`. */
  registry: string;
  remove: () => Promise<void>;
};

/** The folder Node loads package `name` from for a module in `from`: the nearest node_modules/<name> up the tree. */
function packageFolder(name: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === path.dirname(dir)) throw new Error(`${name} is not installed in this checkout (a dependency of ${from})`);
  }
}

/**
 * The folders of the packages `packageJson` declares as dependencies, and theirs, as this checkout
 * resolves them (found by folder: a package's `exports` may not expose its package.json).
 */
function dependencyFolders(packageJson: string, found = new Set<string>()): Set<string> {
  const { dependencies = {} } = JSON.parse(readFileSync(packageJson, 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(dependencies)) {
    const folder = packageFolder(name, path.dirname(packageJson));
    if (found.has(folder)) continue;
    found.add(folder);
    dependencyFolders(path.join(folder, 'package.json'), found);
  }
  return found;
}

type Manifest = { name: string; version: string };
type Packed = { filename: string; integrity: string; shasum: string };

/** A read-only npm registry of these tarballs: a packument per package name, and the tarballs. */
async function startRegistry(packs: string, packed: { manifest: Manifest; tarball: Packed }[]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const packuments = new Map<string, { name: string; 'dist-tags': { latest: string }; versions: Record<string, unknown> }>();
  for (const { manifest, tarball } of packed) {
    const packument = packuments.get(manifest.name) ?? { name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: {} };
    packument.versions[manifest.version] = { ...manifest, dist: { tarball: `${url}-/${tarball.filename}`, integrity: tarball.integrity, shasum: tarball.shasum } };
    packuments.set(manifest.name, packument);
  }
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const name = decodeURIComponent(new URL(request.url ?? '/', url).pathname.slice(1));
    const tarball = name.startsWith('-/') && packed.find((p) => p.tarball.filename === name.slice(2));
    if (tarball) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      createReadStream(path.join(packs, tarball.tarball.filename)).pipe(response);
      return;
    }
    const packument = packuments.get(name);
    response.writeHead(packument ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(packument ?? { error: 'not found' }));
  });
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Builds `packages/<name>` with its tsconfig, packs it and its dependencies, and npm-installs it into an empty project. */
export async function installPackedPackage(name: string): Promise<InstalledPackage> {
  const source = path.join(ROOT, 'packages', name);
  const work = await mkdtemp(path.join(os.tmpdir(), `${name}-package-`));
  const build = path.join(work, 'build');
  const packs = path.join(work, 'packs');
  const project = path.join(work, 'project');
  await mkdir(packs);
  await mkdir(project);
  await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(source, 'tsconfig.json'), '--outDir', path.join(build, 'dist')]);
  await copyFile(path.join(source, 'package.json'), path.join(build, 'package.json'));
  const npm = (args: string[], cwd: string) => run('npm', [...args, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd });
  // One `npm pack` for all of them: npm's start-up, once.
  const folders = [build, ...dependencyFolders(path.join(source, 'package.json'))];
  const { stdout } = await npm(['pack', '--json', '--pack-destination', packs, ...folders], work);
  const packed = (JSON.parse(stdout) as Packed[]).map((tarball, i) => ({ manifest: JSON.parse(readFileSync(path.join(folders[i]!, 'package.json'), 'utf8')) as Manifest, tarball }));
  const registry = await startRegistry(packs, packed);
  const remove = async () => {
    await registry.close();
    await rm(work, { recursive: true, force: true });
  };
  try {
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'stranger', private: true, type: 'module' }));
    const { name: packageName } = packed[0]!.manifest;
    await npm(['install', packageName, '--registry', registry.url, '--cache', path.join(work, 'npm-cache')], project);
    return { project, folder: path.join(project, 'node_modules', packageName), registry: registry.url, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
