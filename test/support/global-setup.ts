/** Runs once per jest run: fails fast with a clear message when no database is reachable, and builds the web UI and the service when stale. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export default async function globalSetup(globalConfig: { rootDir: string }): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test` (it starts a local PostgreSQL)');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('select 1');
  await client.end();
  ensureWebBuilt(globalConfig.rootDir);
  ensureServiceBuilt(globalConfig.rootDir);
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** The verifier's source: the service and the web UI's "check it here" page are built from it too. */
const VERIFIER = join('packages', 'verifier', 'src');

/** The operation catalog's documents: the web UI runs the lifecycle moves with them. */
const CATALOG = join('src', 'graph', 'catalog');

/** The browser tests drive the built UI: build it (Vite, seconds) when dist/web is missing or older than web/, the verifier or the catalog. */
function ensureWebBuilt(repo: string): void {
  const built = join(repo, 'dist', 'web', 'index.html');
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(newestMtime(join(repo, 'web')), newestMtime(join(repo, VERIFIER)), newestMtime(join(repo, CATALOG)))) return;
  const vite = join(repo, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { cwd: repo, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error('building the web UI failed (npm run build:web)');
}

/**
 * Tests of stops, start-up and configuration run the built service (dist/src/main.js) as its own
 * process in production mode (test/support/production-process.ts): build it (tsc, no type check:
 * `npm test` type-checks first) when it is missing or older than src/ or the verifier.
 */
function ensureServiceBuilt(repo: string): void {
  const built = join(repo, 'dist', 'src', 'main.js');
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(newestMtime(join(repo, 'src')), newestMtime(join(repo, VERIFIER)))) return;
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], { cwd: repo, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('building the service failed (tsc -p tsconfig.build.json)');
}
