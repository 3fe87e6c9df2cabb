import { execFile } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');

/**
 * `npm run ops -- <args>` as a user runs it: a child process on the test app's database, without a chain
 * (anchors are not the test app's concern). Never throws on a non-zero exit.
 */
export function runOps(databaseUrl: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', './test/support/child/register.mjs', 'src/ops/cli.ts', ...args],
      { cwd: repo, env: { ...process.env, DATABASE_URL: databaseUrl, CHAIN_RPC_URL: '', NODE_ENV: 'test' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}
