import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/chain.js';
import { openServiceDatabase } from '../support/service-database.js';

const repo = path.resolve(import.meta.dirname, '../..');

/**
 * Tracing costs nothing when it is off: without OTEL_EXPORTER_OTLP_ENDPOINT the real entry point loads
 * none of OpenTelemetry's SDK, exporters or instrumentations, nor import-in-the-middle's hook. Checked
 * in a process of its own.
 */
describe('Tracing off', () => {
  let database: Awaited<ReturnType<typeof openServiceDatabase>>;
  beforeAll(async () => {
    database = await openServiceDatabase();
  }, 60_000);
  afterAll(async () => {
    await database.close();
  });

  const loadedPackages = async (env: Record<string, string>): Promise<string[]> => {
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', './test/support/child/register.mjs', 'test/support/child/loaded-at-main.ts'], {
      cwd: repo,
      env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: database.url, PORT: String(await freePort()), HOST: '127.0.0.1', CHAIN_RPC_URL: '', JOBS_ENABLED: 'false', MIGRATE_ON_START: 'false', LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '0', ...env },
      timeout: 60_000,
    });
    const line = stderr.split('\n').find((text) => text.startsWith('loaded-packages:'));
    if (!line) throw new Error(`no package list: ${stderr.slice(-2000)}`);
    return JSON.parse(line.slice('loaded-packages:'.length)) as string[];
  };

  it('main.ts without OTEL_EXPORTER_OTLP_ENDPOINT loads no OpenTelemetry SDK, exporter, instrumentation or module hook; with it, they are loaded', async () => {
    const off = await loadedPackages({ OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    // The probe sees what is loaded (a wrong probe would see nothing).
    expect(off).toEqual(expect.arrayContaining(['express', 'pg', 'graphql']));
    // Only the API package, which prom-client's default metrics require (processCpuTotal's exemplars): a
    // no-op without an SDK. Nothing of the SDK, the exporters, the instrumentations or the module hooks.
    expect(off.filter((name) => (name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api') || name.endsWith('-in-the-middle'))).toEqual([]);
    // The same probe with tracing on (a collector that is not there: spans are dropped, the service runs).
    const on = await loadedPackages({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    expect(on).toEqual(expect.arrayContaining(['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-pg', 'import-in-the-middle']));
  }, 120_000);
});
