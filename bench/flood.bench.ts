/**
 * The service's memory and liveness under the floods of an outside audit, and after them: for
 * BENCH_FLOOD_SECONDS (default 15) clients from many addresses (X-Forwarded-For from loopback, which
 * the service trusts as a proxy) hold idle graphql-ws sockets, send oversized `connection_init`
 * messages, flood pings from sockets they never read, request sign-in codes, open MCP sessions,
 * post GraphQL documents nested 200 deep and stream 50 MB bodies to `/graphql` and REST (eight
 * clients at once, every other body announced by Content-Length, the others chunked), while one
 * client reads `/health` and a record. Prints the
 * resident peaks (before, during, 5 s after, after a full collection) against the 300 MB goal (286
 * MiB), what the service refused, and the reads' latency during the flood; asserts nothing.
 *
 *   BENCH_ONLY=flood npm run bench
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import WebSocket from 'ws';
import { agreement, Bench, percentile, selected } from './support.js';

if (!selected('flood')) process.exit(0);
const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 15);
const GOAL_MIB = 286;
/** BENCH_FLOOD_PARTS (comma-separated): only these floods (sockets, oversized, pings, codes, mcp, deep, bodies); all by default. */
const PARTS = process.env.BENCH_FLOOD_PARTS?.split(',').map((part) => part.trim());
const part = (name: string) => !PARTS || PARTS.includes(name);
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
/** The oversized bodies of issue 45: 50 MB, streamed in 64 KiB pieces. */
const HUGE_BODY_BYTES = 52_428_800;
const BODY_PIECE = Buffer.alloc(64 * 1024, 'x');

const bench = await Bench.open('rss_bench_flood');
const sockets = new Set<WebSocket>();
try {
  const service = await bench.start('service.js');
  const client = bench.client(service);
  const token = await client.signIn('flood-reader@bench.example');
  const record = (await client.call('POST', '/api/v1/agreements', agreement('Flood benchmark agreement: we agree to stay up.', 'flood-party@bench.example'), token)).id as string;
  const sampler = bench.residentSampler(service);
  sampler.phase('before');
  await new Promise((resolve) => setTimeout(resolve, 2000));

  const wsUrl = service.url.replace('http', 'ws') + '/graphql';
  const counts = new Map<string, number>();
  const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1);
  let address = 0;
  const nextAddress = () => `198.18.${(address >> 8) & 255}.${address++ & 255}`;
  const open = (onOpen: (socket: WebSocket) => void) => {
    const socket = new WebSocket(wsUrl, 'graphql-transport-ws', { headers: { 'x-forwarded-for': nextAddress() } });
    sockets.add(socket);
    socket.on('open', () => onOpen(socket));
    socket.on('unexpected-response', (_request, response) => count(`socket refused ${response.statusCode}`));
    socket.on('close', (code) => {
      sockets.delete(socket);
      count(`socket closed ${code}`);
    });
    socket.on('error', () => undefined);
    return socket;
  };

  const cpuOf = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const serviceCpuBefore = cpuOf(service.child.pid!);
  const ownCpuBefore = process.cpuUsage();
  sampler.phase('flood');
  const until = performance.now() + SECONDS * 1000;
  const running = () => performance.now() < until;
  const loops: Promise<void>[] = [];
  const loop = (gapMs: number, step: () => Promise<unknown> | void) =>
    loops.push(
      (async () => {
        while (running()) {
          await Promise.resolve(step()).catch(() => count('client error'));
          await new Promise((resolve) => setTimeout(resolve, gapMs));
        }
      })(),
    );
  // 1,000 idle sockets that never send connection_init, opened again as they are closed.
  if (part('sockets')) for (let i = 0; i < 10; i += 1) loop(100, () => void (sockets.size < 1000 && Array.from({ length: 20 }, () => open(() => undefined))));
  // Oversized connection_init messages (1 MiB each).
  const big = JSON.stringify({ type: 'connection_init', payload: { authorization: 'x'.repeat(2 ** 20) } });
  if (part('oversized')) loop(50, () => void open((socket) => socket.send(big)));
  // Acknowledged sockets that stop reading and send 200 KiB pings.
  const ping = JSON.stringify({ type: 'ping', payload: { p: 'z'.repeat(200 * 1024) } });
  for (let i = 0; i < (part('pings') ? 10 : 0); i += 1) {
    loop(500, () =>
      new Promise<void>((resolve) => {
        const socket = open((s) => s.send(JSON.stringify({ type: 'connection_init' })));
        socket.once('message', () => {
          (socket as unknown as { _socket: { pause(): void } })._socket.pause();
          const timer = setInterval(() => (socket.readyState === WebSocket.OPEN && running() ? socket.send(ping) : (clearInterval(timer), socket.terminate(), resolve())), 50);
        });
        socket.once('close', () => resolve());
        socket.once('unexpected-response', () => resolve());
      }),
    );
  }
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(service.url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': nextAddress(), ...headers }, body: JSON.stringify(body) }).then((response) => {
      count(`${path} ${response.status}`);
      return response.arrayBuffer();
    });
  // Sign-in codes for ever new addresses, MCP sessions, and deep documents.
  for (let i = 0; i < (part('codes') ? 4 : 0); i += 1) loop(20, () => post('/api/v1/verification/request-otp', { email: `flood${address}@bench.example`, purpose: 'authenticate' }));
  for (let i = 0; i < (part('mcp') ? 4 : 0); i += 1) {
    loop(20, () =>
      post('/mcp', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } }, { accept: 'application/json, text/event-stream' }),
    );
  }
  const deep = `{ ${'a { '.repeat(200)}b${' }'.repeat(200)} }`;
  for (let i = 0; i < (part('deep') ? 4 : 0); i += 1) loop(5, () => post('/graphql', { query: deep }));
  // Eight clients streaming 50 MB bodies as fast as the service takes them, to /graphql and to a REST
  // route (signed in, so that it is the body that is refused), each body in turn announced
  // (Content-Length) or chunked. A client keeps sending after the answer, as a hostile one would, until
  // the service closes the connection: how much of each body went out by the answer and by the close
  // is counted too.
  const sentByAnswer: number[] = [];
  const sentByClose: number[] = [];
  let announced = false;
  const postHuge = (path: string) =>
    new Promise<void>((resolve) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': nextAddress() };
      if (announced) headers['content-length'] = String(HUGE_BODY_BYTES);
      if (path.startsWith('/api/')) headers.authorization = `Bearer ${token}`;
      const kind = announced ? 'announced' : 'chunked';
      announced = !announced;
      const request = http.request(service.url + path, { method: 'POST', agent: false, headers });
      let sent = 0;
      let answered = false;
      request.on('response', (response) => {
        answered = true;
        sentByAnswer.push(sent);
        count(`${path} ${kind} 50 MB ${response.statusCode}`);
        response.resume();
      });
      request.on('error', () => undefined);
      request.on('close', () => {
        if (!answered) count(`${path} ${kind} 50 MB closed unanswered`);
        sentByClose.push(sent);
        resolve();
      });
      const write = () => {
        while (!request.destroyed && sent < HUGE_BODY_BYTES) {
          sent += BODY_PIECE.length;
          if (!request.write(BODY_PIECE)) return void request.once('drain', write);
        }
        if (!request.destroyed) request.end();
      };
      write();
    });
  for (let i = 0; i < (part('bodies') ? 8 : 0); i += 1) loop(0, () => postHuge(i % 2 === 0 ? '/graphql' : '/api/v1/agreements'));
  // A person reading meanwhile.
  const health: number[] = [];
  const reads: number[] = [];
  let failedReads = 0;
  loop(100, async () => {
    let started = performance.now();
    await fetch(`${service.url}/health/ready`).then((r) => r.arrayBuffer());
    health.push(performance.now() - started);
    started = performance.now();
    const answer = await fetch(`${service.url}/api/v1/agreements/${record}`, { headers: { authorization: `Bearer ${token}` } });
    await answer.arrayBuffer();
    if (answer.status === 200) reads.push(performance.now() - started);
    else failedReads += 1;
  });
  await Promise.all(loops);
  for (const socket of sockets) socket.terminate();
  const serviceCpu = cpuOf(service.child.pid!) - serviceCpuBefore;
  const ownCpu = process.cpuUsage(ownCpuBefore);

  sampler.phase('after');
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const peaks = sampler.peaks();
  sampler.stop();
  const memory = await bench.memory(service);
  const line = (name: string, bytes: number) => `| ${name} | ${mib(bytes)} | ${(bytes / 2 ** 20 / GOAL_MIB).toFixed(2)} |`;
  console.log(`\nflood: ${SECONDS} s of idle, oversized and never-reading graphql-ws sockets, code requests, MCP initializes, deep documents and 50 MB bodies from rotating addresses`);
  console.log('\n| resident | MiB | of the 286 MiB goal |\n|---|---|---|');
  console.log(line('peak before', peaks.get('before') ?? Number.NaN));
  console.log(line('peak during the flood', peaks.get('flood') ?? Number.NaN));
  console.log(line('peak in the 5 s after', peaks.get('after') ?? Number.NaN));
  console.log(line('after a full collection', memory.rss));
  console.log(`\nreads during the flood: /health/ready p50 ${percentile(health, 50).toFixed(1)} ms, p99 ${percentile(health, 99).toFixed(1)} ms; record p50 ${percentile(reads, 50).toFixed(1)} ms, p99 ${percentile(reads, 99).toFixed(1)} ms, ${failedReads} failed`);
  console.log(`CPU during the flood: service ${(serviceCpu / SECONDS / 10).toFixed(0)}% of a core, the flooding clients ${((ownCpu.user + ownCpu.system) / 1000 / SECONDS / 10).toFixed(0)}%`);
  if (sentByClose.length > 0) {
    const inMib = (sizes: number[]) => (sizes.length === 0 ? 'none' : `p50 ${(percentile(sizes, 50) / 2 ** 20).toFixed(1)} MiB, max ${(Math.max(...sizes) / 2 ** 20).toFixed(1)} MiB`);
    console.log(`50 MB bodies: ${sentByClose.length} posted; the clients had written ${inMib(sentByAnswer)} of a body by its answer, ${inMib(sentByClose)} by the connection's close`);
  }
  console.log(`answers: ${[...counts].sort().map(([what, n]) => `${what} x${n}`).join(', ')}`);
} finally {
  for (const socket of sockets) socket.terminate();
  await bench.close();
}
