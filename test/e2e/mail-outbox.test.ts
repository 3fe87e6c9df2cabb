import net from 'node:net';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

describe('Mail through the outbox: a silent mail server never holds a request', () => {
  let silent: net.Server;
  const sockets: net.Socket[] = [];
  let t: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    // Accepts connections and then says nothing, ever (no SMTP greeting).
    silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_MAX_ATTEMPTS: '1' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('answers request-otp at once with the code written to the outbox, then shows the failure (body erased), never the code', async () => {
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'quiet@example.com', purpose: 'authenticate' } });
    expect(requested.status).toBe(200);
    const queued = await db.query(`select status, text from mail_outbox where recipient = 'quiet@example.com'`);
    expect(queued.rows).toHaveLength(1);
    expect(['pending', 'sending']).toContain(queued.rows[0].status);
    const code = /code is (\d{6})/.exec(queued.rows[0].text as string)?.[1];
    expect(code).toMatch(/^\d{6}$/);

    const failed = await waitFor(async () => {
      const { rows } = await db.query(`select status, attempts, last_error, text from mail_outbox where recipient = 'quiet@example.com' and status = 'failed'`);
      return rows[0];
    }, 45_000);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, text: null, last_error: expect.any(String) });
    expect(t.logs()).toContain('mail failed for good');
    expect(t.logs()).not.toContain(code!);
  }, 60_000);
});
