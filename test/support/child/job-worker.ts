/**
 * A second instance of the service in its own process, with jobs on: a test can kill it mid-job.
 * Run as `node --import ./test/support/child/register.mjs test/support/child/job-worker.ts` with
 * DATABASE_URL (and any other configuration) in the environment; prints `ready <url>` once started.
 */
import 'reflect-metadata';
import { startApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';

const config = loadConfig({ ...process.env, NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', JOBS_ENABLED: 'true', MIGRATE_ON_START: 'false' });
const app = await startApp(config, {
  logger: createLogger('info', process.stderr),
  jobProcessEvery: 200,
});
process.stdout.write(`ready ${app.url}\n`);
