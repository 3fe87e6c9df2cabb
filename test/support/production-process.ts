import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCertificateAuthority } from './certificate-authority.js';
import { createTestDatabase } from './database.js';
import { CaptureSmtp } from './smtp.js';
import { waitFor } from './wait.js';

const repo = path.resolve(import.meta.dirname, '../..');

export type ProductionProcess = {
  child: ChildProcess;
  url: string;
  /** Everything it wrote (JSON log lines on stdout, anything on stderr). */
  output: () => string;
  /** Its log lines, parsed. */
  logLines: () => Record<string, unknown>[];
  /** Resolves when it exits: its code, signal, and the time (Date.now()) it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** SIGKILLs it if it still runs (for afterAll). */
  kill: () => void;
};

/**
 * What production needs and a test cannot take from the machine: a seal key (a PKCS#12 issued by a
 * throwaway CA, in its own folder) and a SERVER_SECRET.
 */
export async function productionSettings(): Promise<{ env: Record<string, string>; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-production-'));
  const ca = await startCertificateAuthority({ name: 'Production Test CA' });
  try {
    const seal = await ca.issue({ commonName: 'Production Test Seal', kind: 'seal' });
    const p12 = path.join(dir, 'seal.p12');
    fs.writeFileSync(p12, await seal.p12('production-seal-password'));
    return { dir, env: { SEAL_P12_PATH: p12, SEAL_P12_PASSWORD: 'production-seal-password', SERVER_SECRET: randomBytes(32).toString('base64url'), LOCAL_STATE_DIR: dir } };
  } finally {
    await ca.close();
  }
}

/**
 * The built service (`dist/src/main.js`, as `npm start` and a container run it) as its own process in
 * production mode: what depends on the process (signals, start-up, configuration) behaves as an
 * operator sees it, not as an in-process test app with NODE_ENV=test does. Only `env` and PATH reach
 * it: nothing of the test runner's environment. Resolves once it listens (or at once, without
 * `waitUntilListening`: then `url` is its PORT's, which the caller chose).
 */
export async function startProductionProcess(env: Record<string, string>, options: { waitUntilListening?: boolean } = {}): Promise<ProductionProcess> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Log lines are read from stdout alone: a stderr chunk arriving between two chunks of one line would break it.
  let output = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), (output += chunk)));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  // 'close' comes after its output is all read ('exit' may come before the last lines); the time is the exit's.
  let exitedAt = 0;
  child.once('exit', () => (exitedAt = Date.now()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, at: exitedAt || Date.now() })));
  const logLines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const kill = () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  if (options.waitUntilListening === false) return { child, url: `http://127.0.0.1:${env.PORT ?? '0'}`, output: () => output, logLines, exited, kill };
  await waitFor(async () => logLines().some((line) => line.msg === 'record signing service listening') || child.exitCode !== null, 60_000).catch(() => undefined);
  const url = logLines().find((line) => line.msg === 'record signing service listening')?.url;
  if (typeof url !== 'string') {
    child.kill('SIGKILL');
    throw new Error(`the built service did not start: ${output.slice(-3000)}`);
  }
  return { child, url, output: () => output, logLines, exited, kill };
}

export type ProductionDeployment = {
  /** The production settings (seal key, SERVER_SECRET, LOCAL_STATE_DIR) with a database and a mail server of the test's own. */
  env: () => Record<string, string>;
  settings: () => Awaited<ReturnType<typeof productionSettings>>;
  databaseUrl: () => string;
  smtpUrl: () => string;
};

/**
 * A describe block's deployment for production processes: made in beforeAll (settings, a database, a
 * mail server), every process the test started killed after each test, all removed in afterAll.
 */
export function productionDeployment(processes: () => (ProductionProcess | undefined)[]): ProductionDeployment {
  let settings: Awaited<ReturnType<typeof productionSettings>>;
  let database: { url: string; drop: () => Promise<void> };
  const smtp = new CaptureSmtp();
  let smtpUrl: string;
  beforeAll(async () => {
    [settings, database, smtpUrl] = await Promise.all([productionSettings(), createTestDatabase(), smtp.start()]);
  });
  afterEach(() => {
    for (const started of processes()) started?.kill();
  });
  afterAll(async () => {
    await smtp.stop();
    await database?.drop();
    if (settings) fs.rmSync(settings.dir, { recursive: true, force: true });
  });
  return {
    env: () => ({ ...settings.env, DATABASE_URL: database.url, SMTP_URL: smtpUrl }),
    settings: () => settings,
    databaseUrl: () => database.url,
    smtpUrl: () => smtpUrl,
  };
}
