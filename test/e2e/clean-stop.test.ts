import http from 'node:http';
import pg from 'pg';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

/** One request on a connection of its own (no keep-alive pool): status, headers and body, or the connection error. */
function once(url: string, path: string): Promise<{ status: number; connection: string | undefined; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = http.get(url + path, { agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

describe('a clean stop', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('says 503 at once, serves through the drain with Connection: close, answers the request in flight, tells WebSocket clients 1001, then takes no connection', async () => {
    t = await startTestApp({ SHUTDOWN_DRAIN_MS: '1500' });
    const { url } = t;
    // A GraphQL request whose body is still arriving when the stop begins: in flight across the drain.
    const query = JSON.stringify({ query: '{ __typename }' });
    const inFlight = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const request = http.request(url + '/graphql', { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(query.length) } }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
      });
      request.on('error', reject);
      request.write(query.slice(0, 5));
      setTimeout(() => request.end(query.slice(5)), 2500);
    });
    // A graphql-ws client with a live connection.
    const socket = new WebSocket(url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
      socket.on('message', (data: Buffer) => (JSON.parse(data.toString()) as { type: string }).type === 'connection_ack' && resolve());
    });
    await new Promise((resolve) => setTimeout(resolve, 200));

    const stopped = t.app.stop();
    const ready = await once(url, '/health/ready');
    expect(ready).toEqual({ status: 503, connection: 'close', body: JSON.stringify({ status: 'not_ready', checks: { shutdown: 'stopping' } }) });
    // Still serving new connections during the drain, each closed after its answer.
    const health = await once(url, '/health');
    expect(health).toMatchObject({ status: 200, connection: 'close' });
    expect(await once(url, '/api/openapi.json')).toMatchObject({ status: 200, connection: 'close' });

    // After the drain the listener is closed, the request in flight is answered, and the socket told "going away".
    await waitFor(async () => 'error' in (await once(url, '/health')), 10_000);
    expect(await once(url, '/health')).toEqual({ error: 'ECONNREFUSED' });
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({ data: { __typename: 'Query' } });
    expect(await closed).toBe(1001);
    await stopped;
    // A second stop (a second signal) waits for the same one.
    await t.app.stop();
    expect(t.logs()).not.toMatch(/shutdown step (failed|did not finish)/);
  });

  it('hands back a job still running when its time is up, unlocked for another instance', async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true', SHUTDOWN_TIMEOUT_MS: '3000' });
    const agenda = t.app.agenda!;
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      agenda.define('clean-stop test job', async () => {
        resolve();
        await new Promise<void>((done) => (release = done));
      });
    });
    await agenda.now('clean-stop test job');
    await started;
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const locked = await client.query<{ locked_at: Date | null }>(`select locked_at from agenda_jobs where name = 'clean-stop test job'`);
      expect(locked.rows[0]?.locked_at).not.toBeNull();
      // A third of SHUTDOWN_TIMEOUT_MS (1 s) to finish, then handed back.
      const begun = Date.now();
      await t.app.stop();
      expect(Date.now() - begun).toBeLessThan(8000);
      const after = await client.query<{ locked_at: Date | null }>(`select locked_at from agenda_jobs where name = 'clean-stop test job'`);
      expect(after.rows[0]?.locked_at).toBeNull();
      expect(t.logs()).toMatch(/jobs still running at the stop were handed back to the queue/);
      expect(t.logs()).toMatch(/"jobs":\["clean-stop test job"\]/);
    } finally {
      release();
      await client.end();
    }
  });

  it('lets a job that finishes within its time finish', async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true', SHUTDOWN_TIMEOUT_MS: '6000' });
    const agenda = t.app.agenda!;
    let finished = false;
    const started = new Promise<void>((resolve) => {
      agenda.define('short test job', async () => {
        resolve();
        await new Promise((done) => setTimeout(done, 700));
        finished = true;
      });
    });
    await agenda.now('short test job');
    await started;
    await t.app.stop();
    expect(finished).toBe(true);
    expect(t.logs()).not.toMatch(/handed back/);
  });
});
