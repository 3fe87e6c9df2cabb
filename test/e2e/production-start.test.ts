import net from 'node:net';
import { freePort } from '../support/chain.js';
import { productionDeployment, startProductionProcess, type ProductionProcess } from '../support/production-process.js';
import { waitFor } from '../support/wait.js';

/** A TCP door to the real PostgreSQL, closed until `open()`: the database "starting" beside the service. */
async function databaseDoor(target: URL): Promise<{ port: number; open: () => Promise<void>; close: () => Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    port,
    open: () => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve())),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const status = async (url: string, path: string) => {
  const response = await fetch(url + path).catch(() => null);
  return response ? { status: response.status, body: (await response.json()) } : null;
};

/**
 * Start-up and configuration of the built service in production mode, as an operator meets them:
 * every missing requirement named at once with exit 2 (not a stack trace per attempt), and a database
 * that is not up yet waited for, with readiness 503 and structured lines, instead of an exit.
 */
describe('Start-up of the built service in production mode', () => {
  let instance: ProductionProcess | undefined;
  const deployment = productionDeployment(() => [instance]);

  it('names every missing production setting at once and exits 2, with no stack trace', async () => {
    instance = await startProductionProcess({ DATABASE_URL: deployment.databaseUrl() }, { waitUntilListening: false });
    const exited = await instance.exited;
    expect(exited.code).toBe(2);
    const said = instance.output();
    expect(said).toContain('Invalid configuration:');
    for (const variable of ['SERVER_SECRET', 'SEAL_P12_PATH', 'SMTP_URL']) expect(said).toContain(`  ${variable}: required in production`);
    expect(said).not.toMatch(/^\s+at /m);

    // Mail kept in the outbox folder on purpose (MAIL_OUTBOX_DIR named): only the other two are missing.
    instance = await startProductionProcess({ DATABASE_URL: deployment.databaseUrl(), MAIL_OUTBOX_DIR: deployment.settings().dir }, { waitUntilListening: false });
    expect((await instance.exited).code).toBe(2);
    expect(instance.output()).not.toContain('SMTP_URL');
    expect(instance.output()).toContain('SERVER_SECRET');
  });

  it('waits for a database that is not up yet (readiness 503, structured lines, no password), then starts; stops cleanly', async () => {
    const target = new URL(deployment.databaseUrl());
    const door = await databaseDoor(target);
    const url = new URL(deployment.databaseUrl());
    url.port = String(door.port);
    url.hostname = '127.0.0.1';
    url.password = 'db-password-never-logged';
    url.username = target.username || 'postgres';
    const port = await freePort();
    try {
      instance = await startProductionProcess({ ...deployment.env(), DATABASE_URL: url.href, PORT: String(port), JOBS_ENABLED: 'false' }, { waitUntilListening: false });
      // Alive but not ready, while the database refuses connections.
      expect(await waitFor(async () => (await status(instance!.url, '/health/ready'))?.status === 503, 20_000)).toBe(true);
      expect(await status(instance.url, '/health')).toEqual({ status: 200, body: { status: 'starting' } });
      expect(await status(instance.url, '/health/ready')).toEqual({ status: 503, body: { status: 'not_ready', checks: { database: 'unreachable' } } });
      await waitFor(async () => instance!.logLines().filter((line) => line.event === 'database_unreachable').length >= 3, 20_000);
      const waits = instance.logLines().filter((line) => line.event === 'database_unreachable');
      expect(waits[0]).toMatchObject({ level: 40, attempt: 1, code: 'ECONNREFUSED', retryInMs: 500 });
      expect(waits[1]).toMatchObject({ attempt: 2, retryInMs: 1000 });
      expect(instance.child.exitCode).toBeNull();

      await door.open();
      await waitFor(async () => (await status(instance!.url, '/health/ready'))?.status === 200, 30_000);
      expect(instance.logLines().some((line) => line.msg === 'record signing service listening')).toBe(true);
      expect(instance.output()).not.toContain('db-password-never-logged');
      instance.child.kill('SIGTERM');
      expect(await instance.exited).toMatchObject({ code: 0 });
    } finally {
      await door.close();
    }
  }, 90_000);

  it('gives up after DATABASE_START_TIMEOUT_SECONDS with one structured line and exit 1', async () => {
    const port = await freePort();
    instance = await startProductionProcess(
      { ...deployment.env(), DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/none`, PORT: String(port), DATABASE_START_TIMEOUT_SECONDS: '2' },
      { waitUntilListening: false },
    );
    const exited = await instance.exited;
    expect(exited.code).toBe(1);
    const lines = instance.logLines();
    expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'the service could not start' });
    expect(lines.some((line) => line.msg === 'the database did not answer within DATABASE_START_TIMEOUT_SECONDS; giving up')).toBe(true);
    // Everything it wrote is JSON lines: no raw stack trace.
    expect(instance.output().split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'))).toEqual([]);
  }, 60_000);
});
