import http from 'node:http';
import net from 'node:net';
import { productionDeployment, startProductionProcess, type ProductionProcess } from '../support/production-process.js';

type Answer = { at: number; status: number; body: string } | { at: number; error: string };

/** A GraphQL read as the web UI sends it, on a connection of its own. */
async function graphqlRead(url: string): Promise<Answer> {
  try {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ query: 'query Ping { __typename }' }),
    });
    return { at: Date.now(), status: response.status, body: await response.text() };
  } catch (error) {
    return { at: Date.now(), error: ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message) };
  }
}

/**
 * The built service in production mode, stopped by a signal as an orchestrator stops it. In-process
 * tests (NODE_ENV=test) cannot see this: Apollo installs its own SIGINT/SIGTERM handlers unless
 * NODE_ENV is test, and stopped GraphQL at the signal while REST still served the drain.
 */
describe('A clean stop of the built service in production mode', () => {
  let instance: ProductionProcess | undefined;
  const deployment = productionDeployment(() => [instance]);

  const start = (env: Record<string, string>) =>
    startProductionProcess({ ...deployment.env(), JOBS_ENABLED: 'false', SHUTDOWN_TIMEOUT_MS: '20000', ...env });

  it('serves GraphQL through the whole drain after SIGTERM, then exits 0', async () => {
    instance = await start({ SHUTDOWN_DRAIN_MS: '1500' });
    expect(await graphqlRead(instance.url)).toMatchObject({ status: 200, body: '{"data":{"__typename":"Query"}}\n' });
    const signalled = Date.now();
    instance.child.kill('SIGTERM');
    const answers: Answer[] = [];
    // The web UI's reads during the drain: each answered, or refused once the listener has closed.
    for (let exited = false; !exited; ) {
      answers.push(await graphqlRead(instance.url));
      exited = instance.child.exitCode !== null || answers.some((a) => 'error' in a);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const during = answers.filter((a): a is Extract<Answer, { status: number }> => 'status' in a);
    // Several reads (how many depends on the machine's load: each is a connection of its own), all answered.
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during.filter((a) => a.status !== 200 || !a.body.includes('"__typename":"Query"'))).toEqual([]);
    // The drain lasted its SHUTDOWN_DRAIN_MS: answers kept coming well after the signal.
    expect(during.at(-1)!.at - signalled).toBeGreaterThan(1000);
    expect(await instance.exited).toMatchObject({ code: 0 });
  }, 60_000);

  it('answers GraphQL on a keep-alive connection opened before the listener closed, as a balancer reuses one', async () => {
    instance = await start({ SHUTDOWN_DRAIN_MS: '1000' });
    // One connection, kept alive: a balancer's upstream pool.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { port } = new URL(instance.url);
    const read = () =>
      new Promise<{ status: number; connection: string | undefined; body: string; socket: net.Socket }>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, body, socket: request.socket! }));
        });
        request.on('error', reject);
        request.end(JSON.stringify({ query: 'query Ping { __typename }' }));
      });
    const first = await read();
    expect(first.status).toBe(200);
    instance.child.kill('SIGTERM');
    // The listener closes after the drain delay: new connections are refused from then on.
    const refused = () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(false)));
        socket.once('error', () => resolve(true));
      });
    while (!(await refused())) await new Promise((resolve) => setTimeout(resolve, 50));
    // The idle keep-alive connection is still open (the server's keep-alive timeout has not run out): a
    // request on it is answered in full, and the connection then closes.
    const second = await read();
    expect(second.socket).toBe(first.socket);
    expect(second).toMatchObject({ status: 200, connection: 'close', body: '{"data":{"__typename":"Query"}}\n' });
    agent.destroy();
    expect(await instance.exited).toMatchObject({ code: 0 });
  }, 60_000);

  it('with SHUTDOWN_DRAIN_MS=0 exits within 2 s of the signal, every step in time', async () => {
    instance = await start({ SHUTDOWN_DRAIN_MS: '0' });
    expect(await graphqlRead(instance.url)).toMatchObject({ status: 200 });
    const signalled = Date.now();
    instance.child.kill('SIGTERM');
    const exited = await instance.exited;
    expect(exited.code).toBe(0);
    expect(exited.at - signalled).toBeLessThan(2000);
    expect(instance.logLines().filter((line) => line.msg === 'shutdown step did not finish in time; stopping without it')).toEqual([]);
  }, 60_000);
});
