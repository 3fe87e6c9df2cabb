import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadServerSecret } from '../../src/domain/shared/server-secret.js';

describe('The server secret', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rss-secret-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is generated once outside production, kept readable by its owner only, and the same at every start', async () => {
    const first = await loadServerSecret({ value: undefined, production: false, localDir: dir });
    const again = await loadServerSecret({ value: undefined, production: false, localDir: dir });
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(again.equals(first)).toBe(true);
    expect((await stat(path.join(dir, 'secret', 'server-secret'))).mode & 0o777).toBe(0o600);
  });

  it('is required in production, and must be long enough when given', async () => {
    await expect(loadServerSecret({ value: undefined, production: true, localDir: dir })).rejects.toThrow(/SERVER_SECRET is required in production/);
    await expect(loadServerSecret({ value: 'short', production: false, localDir: dir })).rejects.toThrow(/at least 32/);
    expect((await loadServerSecret({ value: 'x'.repeat(40), production: true, localDir: dir })).toString()).toBe('x'.repeat(40));
  });
});
