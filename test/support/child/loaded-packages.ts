/**
 * Starts the service (jobs off, no chain, no MongoDB) in its own process and prints, as one JSON line, the npm
 * packages whose modules were loaded by then. Run as `node --import ./test/support/child/register.mjs
 * test/support/child/loaded-packages.ts` with DATABASE_URL in the environment.
 */
import { recordLoadedPackages } from './package-recorder.js';

const packages = recordLoadedPackages();

await import('reflect-metadata');
const { startApp } = await import('../../../src/app.js');
const { loadConfig } = await import('../../../src/config.js');
const { createLogger } = await import('../../../src/logger.js');
const { CHAIN_RPC_URL: _chain, MONGODB_URL: _mongo, ...environment } = process.env;
const config = loadConfig({ ...environment, NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', JOBS_ENABLED: 'false', MIGRATE_ON_START: 'false' });
const app = await startApp(config, { logger: createLogger('warn', process.stderr) });
process.stdout.write(`${JSON.stringify([...packages].sort())}\n`);
await app.stop();
process.exit(0);
