import os from 'node:os';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('Configuration defaults', () => {
  const base = { DATABASE_URL: 'postgres://127.0.0.1:5432/none' };

  it('gives sealing one render thread per core the API thread leaves free (at least one, at most four)', () => {
    const expected = Math.min(4, Math.max(1, os.availableParallelism() - 1));
    expect(loadConfig(base).sealing.workers).toBe(expected);
    expect(loadConfig({ ...base, SEAL_WORKERS: '3' }).sealing.workers).toBe(3);
  });

  it('keeps listing pages and record reads 10 s by default; 0 turns a cache off, and a value out of range is refused by name', () => {
    expect(loadConfig(base).caches).toMatchObject({ listingSeconds: 10, recordSeconds: 10 });
    expect(loadConfig({ ...base, RECORD_CACHE_SECONDS: '0', LISTING_CACHE_SECONDS: '0' }).caches).toMatchObject({ listingSeconds: 0, recordSeconds: 0 });
    for (const value of ['301', '-1', 'soon']) {
      expect(() => loadConfig({ ...base, RECORD_CACHE_SECONDS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, RECORD_CACHE_SECONDS: value })).toThrow(/RECORD_CACHE_SECONDS/);
    }
  });

  it('bounds what one client can hold: sockets, MCP sessions, queued mail, job locks and request time', () => {
    const config = loadConfig(base);
    expect(config.websocket).toEqual({ maxConnections: 2000, maxConnectionsPerClient: 50, idleSeconds: 60, initTimeoutMs: 3000 });
    expect(config.mcp).toMatchObject({ sessionUnusedSeconds: 600, initializePerMinute: 30, maxSessions: 20_000 });
    expect(config.mailQueue).toMatchObject({ concurrency: 4, backlogPerRecipient: 10, backlogPerClient: 50 });
    expect(config.jobLockSeconds).toBe(30);
    expect(config.requestTimeoutSeconds).toBe(20);
    expect(() => loadConfig({ ...base, WS_MAX_CONNECTIONS_PER_CLIENT: '0' })).toThrow(/WS_MAX_CONNECTIONS_PER_CLIENT/);
  });
});
