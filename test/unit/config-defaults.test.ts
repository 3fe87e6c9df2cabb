import os from 'node:os';
import { loadConfig } from '../../src/config.js';

describe('Configuration defaults', () => {
  const base = { DATABASE_URL: 'postgres://127.0.0.1:5432/none' };

  it('gives sealing one render thread per core the API thread leaves free (at least one, at most four)', () => {
    const expected = Math.min(4, Math.max(1, os.availableParallelism() - 1));
    expect(loadConfig(base).sealing.workers).toBe(expected);
    expect(loadConfig({ ...base, SEAL_WORKERS: '3' }).sealing.workers).toBe(3);
  });
});
