import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect, promisify } from 'node:util';
import { threadRenderer } from '../../src/domain/sealing/renderer.js';
import { loadSealKey, type SealKey } from '../../src/domain/sealing/seal-key.js';

describe('Seal key', () => {
  let workDir: string;
  let first: SealKey;

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'seal-key-'));
    first = await loadSealKey({ production: false, localDir: workDir, serviceName: 'Acme Sign' });
  });

  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('makes the development seal once, private to the owner, and reuses it', async () => {
    expect(first.source).toBe('development');
    expect(first.subject).toBe('CN=Acme Sign development seal');
    expect(first.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const file of ['seal.p12', 'seal.password']) {
      expect((await stat(path.join(workDir, 'seal', file))).mode & 0o777).toBe(0o600);
    }
    const again = await loadSealKey({ production: false, localDir: workDir });
    expect(again.fingerprint).toBe(first.fingerprint);
    expect(Buffer.from(again.p12).equals(Buffer.from(first.p12))).toBe(true);
  });

  it('ends with one key when two processes race to make it', async () => {
    const raceDir = path.join(workDir, 'process-race');
    const module = path.resolve(import.meta.dirname, '../../src/domain/sealing/seal-key.ts');
    const script = `const { loadSealKey } = await import(${JSON.stringify(module)}); process.stdout.write((await loadSealKey({ production: false, localDir: ${JSON.stringify(raceDir)} })).fingerprint);`;
    const child = () => promisify(execFile)(process.execPath, ['--experimental-transform-types', '--no-warnings', '--input-type=module', '-e', script]);
    const [one, two] = await Promise.all([child(), child()]);
    expect(one.stdout).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(two.stdout).toBe(one.stdout);
    expect((await loadSealKey({ production: false, localDir: raceDir })).fingerprint).toBe(one.stdout);
  });

  it('never shows its password in JSON, strings or inspection', async () => {
    const key = first;
    const password = (await readFile(path.join(workDir, 'seal', 'seal.password'), 'utf8')).trim();
    expect(password.length).toBeGreaterThanOrEqual(24);
    for (const shown of [JSON.stringify(key), String(key), inspect(key, { showHidden: true, depth: 5 }), key.toString()]) {
      expect(shown).not.toContain(password);
    }
    expect(JSON.parse(JSON.stringify(key))).toEqual({ fingerprint: key.fingerprint, subject: key.subject, source: 'development' });
    // What a render thread receives carries the password, yet shows only the fingerprint...
    const material = key.signingMaterial();
    for (const shown of [JSON.stringify(material), inspect(material), inspect({ task: { seal: material } }, { depth: 5 })]) {
      expect(shown).not.toContain(password);
      expect(shown).toContain(key.fingerprint);
    }
    // ...and the thread's copy is exactly its three fields.
    expect(Object.keys(structuredClone(material)).sort()).toEqual(['fingerprint', 'p12', 'password']);
  });

  it('opens a configured PKCS#12 file with its password', async () => {
    const password = (await readFile(path.join(workDir, 'seal', 'seal.password'), 'utf8')).trim();
    const configured = await loadSealKey({ production: true, localDir: workDir, p12Path: path.join(workDir, 'seal', 'seal.p12'), p12Password: password });
    expect(configured.source).toBe('configured');
    expect(configured.fingerprint).toBe(first.fingerprint);
  });

  it('refuses to start in production without SEAL_P12_PATH', async () => {
    const emptyDir = path.join(workDir, 'production');
    await expect(loadSealKey({ production: true, localDir: emptyDir })).rejects.toThrow(/SEAL_P12_PATH/);
    await expect(stat(path.join(emptyDir, 'seal'))).rejects.toThrow();
  });

  it('names SEAL_P12_PATH when the file cannot be read', async () => {
    await expect(loadSealKey({ production: true, localDir: workDir, p12Path: path.join(workDir, 'missing.p12'), p12Password: 'x' })).rejects.toThrow(/SEAL_P12_PATH .*cannot be read/);
  });

  it('names SEAL_P12_PASSWORD, never the password itself, when the password is wrong', async () => {
    const wrong = 'Wrong-Password-7f3a9c';
    const error = await loadSealKey({ production: true, localDir: workDir, p12Path: path.join(workDir, 'seal', 'seal.p12'), p12Password: wrong }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const message = String((error as Error).message);
    expect(message).toContain('SEAL_P12_PASSWORD');
    expect(message).not.toContain(wrong);
    expect(inspect(error)).not.toContain(wrong);
  });

  it('names SEAL_P12_PASSWORD when the file is not a PKCS#12 key', async () => {
    const garbage = path.join(workDir, 'garbage.p12');
    await writeFile(garbage, 'not a key');
    await expect(loadSealKey({ production: true, localDir: workDir, p12Path: garbage, p12Password: 'secret-value' })).rejects.toThrow(/SEAL_P12_PASSWORD/);
  });

  it('is opened the same way on a render thread, as the service does at start, and a wrong password is refused there too', async () => {
    const threads = threadRenderer(1, { execArgv: ['--import', new URL('../support/child/register.mjs', import.meta.url).href] });
    try {
      const certificateOf = (p12: Uint8Array, password: string) => threads.certificate(p12, password);
      const password = (await readFile(path.join(workDir, 'seal', 'seal.password'), 'utf8')).trim();
      const p12Path = path.join(workDir, 'seal', 'seal.p12');
      const onThread = await loadSealKey({ production: true, localDir: workDir, p12Path, p12Password: password, certificateOf });
      expect(onThread.fingerprint).toBe(first.fingerprint);
      expect(onThread.subject).toBe(first.subject);
      expect(threads.completed()).toBe(1);
      const wrong = 'Wrong-Password-on-a-thread-51c2';
      const error = await loadSealKey({ production: true, localDir: workDir, p12Path, p12Password: wrong, certificateOf }).catch((e: unknown) => e);
      expect(String((error as Error).message)).toContain('SEAL_P12_PASSWORD');
      expect(inspect(error)).not.toContain(wrong);
    } finally {
      await threads.close();
    }
  });
});
