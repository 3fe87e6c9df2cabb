import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait.js';

const repo = path.resolve(import.meta.dirname, '../..');

export type InstanceProcess = { child: ChildProcess; url: string; output: () => string };

/**
 * Another instance of the service in its own process (test/support/child/job-worker.ts, jobs on) on
 * `databaseUrl`: a test can kill it, or watch whether it survives. `env` adds configuration.
 */
export async function startInstanceProcess(databaseUrl: string, smtpUrl: string, env: Record<string, string> = {}): Promise<InstanceProcess> {
  const child = spawn(process.execPath, ['--import', './test/support/child/register.mjs', 'test/support/child/job-worker.ts'], {
    cwd: repo,
    env: { ...process.env, DATABASE_URL: databaseUrl, SMTP_URL: smtpUrl, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(async () => /ready http/.test(output) || child.exitCode !== null).catch(() => undefined);
  const url = /ready (http\S+)/.exec(output)?.[1];
  if (!url) throw new Error(`instance process did not start: ${output.slice(-2000)}`);
  return { child, url, output: () => output };
}
