import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parse } from 'yaml';
import { createTestDatabase } from '../support/database.js';
import { containerScriptEnv, podman, podmanUnavailable } from '../support/podman.js';
import { productionSettings } from '../support/production-process.js';
import { remoteApp } from '../support/remote-app.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { CaptureSmtp } from '../support/smtp.js';
import { waitFor } from '../support/wait.js';

type ComposeService = { environment: Record<string, string>; read_only?: boolean; tmpfs: string[]; cap_drop: string[]; security_opt: string[] };

const repo = path.resolve(import.meta.dirname, '../..');
/** A base made from Debian's packages with the project's Node 24 (scripts/container-base.sh); users build on the official node image. */
const BASE_IMAGE = `localhost/rss-node-base:${process.versions.node}-bookworm`;
const IMAGE = 'localhost/record-signing-service:test';
/** The CA bundle npm needs inside the build where a TLS-inspecting proxy stands between it and the registry. */
const CA_BUNDLE = [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find((file) => file && fs.existsSync(file));

const unavailable = podmanUnavailable();
if (unavailable) {
  console.warn(
    `container image test skipped: ${unavailable}. To run it (Debian, as root): apt-get install podman buildah runc debootstrap ` +
      '(README, Deploy: "The container test"); it builds the image from a base made from Debian\'s packages.',
  );
}
const describeWithPodman = unavailable ? describe.skip : describe;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/**
 * The image as operators run it (Containerfile): built (layers cached across runs on one machine) on a
 * base made from Debian's packages, run as compose.yaml runs it (its environment and seal-key path, as
 * its own user on a read-only root filesystem with only its declared volume and /tmp writable), against
 * the test's PostgreSQL and mail capture (host network: no bridge in this sandbox). It becomes ready, signs people in and seals a record, and stops cleanly on
 * `podman stop` (SIGTERM). Skipped where podman cannot run.
 */
describeWithPodman('The container image', () => {
  const container = `rss-image-test-${randomBytes(4).toString('hex')}`;
  const smtp = new CaptureSmtp();
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let settings: Awaited<ReturnType<typeof productionSettings>>;
  let url: string;
  let startedMs: number;

  beforeAll(async () => {
    // The base only when missing (about 2 min once per machine: debootstrap), then the image: about 10 min
    // the first time (npm ci, canvas built from source), well under a minute from the cache.
    const baseStarted = Date.now();
    await new Promise<void>((resolve, reject) =>
      execFile('sh', ['scripts/container-base.sh', BASE_IMAGE], { cwd: repo, env: containerScriptEnv(), timeout: 15 * 60_000 }, (error, _stdout, stderr) =>
        error ? reject(new Error(`container-base.sh failed: ${stderr.slice(-3000)}`)) : resolve(),
      ),
    );
    const buildStarted = Date.now();
    const secret = CA_BUNDLE ? ['--secret', `id=ca_certificates,src=${CA_BUNDLE}`] : [];
    // --ulimit: a RUN step otherwise gets 1024 open files here, and npm's install runs out (EMFILE).
    await podman(['build', '--network', 'host', '--ulimit', 'nofile=16384:16384', '--format', 'docker', ...secret, '--build-arg', `BASE_IMAGE=${BASE_IMAGE}`, '-t', IMAGE, '-f', path.join(repo, 'Containerfile'), repo], { timeout: 30 * 60_000 });
    const size = Number((await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE])).stdout.trim());
    console.log(`container image: ${(size / 1024 / 1024).toFixed(0)} MiB (${IMAGE}); base ready in ${((buildStarted - baseStarted) / 1000).toFixed(1)} s, image built in ${((Date.now() - buildStarted) / 1000).toFixed(1)} s`);

    [database, settings] = await Promise.all([createTestDatabase(), productionSettings()]);
    const smtpUrl = await smtp.start();
    // The container's user (UID 10001) reads the seal key, mounted read-only (a throwaway key).
    fs.chmodSync(settings.env.SEAL_P12_PATH!, 0o644);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    // As compose.yaml runs it (its environment, the seal key where its secret goes, read-only with its tmpfs and
    // dropped capabilities), with the test's database, mail capture, secrets and port instead of compose's.
    const app = (parse(fs.readFileSync(path.join(repo, 'compose.yaml'), 'utf8')) as { services: { app: ComposeService } }).services.app;
    const env = {
      ...app.environment,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      SMTP_URL: smtpUrl,
      SERVER_SECRET: settings.env.SERVER_SECRET!,
      SEAL_P12_PASSWORD: settings.env.SEAL_P12_PASSWORD!,
      SEAL_WORKERS: '1',
    };
    const started = Date.now();
    await podman([
      'run', '--detach', '--name', container, '--network', 'host',
      // Nothing but the declared volume (/app/.local, an anonymous volume here) and compose's tmpfs is writable.
      ...(app.read_only ? ['--read-only', '--read-only-tmpfs=false'] : []),
      ...app.tmpfs.flatMap((dir) => ['--tmpfs', dir]),
      ...app.cap_drop.flatMap((capability) => ['--cap-drop', capability]),
      ...app.security_opt.flatMap((option) => ['--security-opt', option.replace(/:true$/, '')]),
      // No systemd here to run the health check on a timer: `podman healthcheck run` runs it below.
      '--health-interval', 'disable',
      '--volume', `${settings.env.SEAL_P12_PATH}:${app.environment.SEAL_P12_PATH}:ro`,
      ...Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
      IMAGE,
    ]);
    await waitFor(async () => (await fetch(`${url}/health/ready`).catch(() => null))?.status === 200, 120_000).catch(async (error: unknown) => {
      throw new Error(`not ready: ${(error as Error).message}\n${(await podman(['logs', container]).catch(() => ({ stdout: '', stderr: '' }))).stdout.slice(-3000)}`);
    });
    startedMs = Date.now() - started;
    console.log(`container start: ${startedMs} ms from \`podman run\` to /health/ready 200 (migrating an empty database)`);
  }, 45 * 60_000);

  afterAll(async () => {
    await podman(['rm', '--force', '--volumes', container]).catch(() => undefined);
    await smtp.stop();
    await database?.drop();
    if (settings) fs.rmSync(settings.dir, { recursive: true, force: true });
  });

  it('runs as a non-root user with its labels, health check and stop signal', async () => {
    expect((await podman(['exec', container, 'id', '-u'])).stdout.trim()).toBe('10001');
    const [inspected] = JSON.parse((await podman(['image', 'inspect', IMAGE])).stdout) as { Config: Record<string, any>; Healthcheck?: { Test: string[] } }[];
    expect(inspected!.Config).toMatchObject({ User: '10001:10001', StopSignal: 'SIGTERM', Volumes: { '/app/.local': {} } });
    expect(inspected!.Config.Labels).toMatchObject({ 'org.opencontainers.image.title': 'record-signing-service', 'org.opencontainers.image.licenses': 'MIT' });
    expect(inspected!.Healthcheck?.Test).toEqual(['CMD', 'node', 'dist/src/healthcheck.js']);
    // The image's health check itself, as the runtime runs it.
    await podman(['healthcheck', 'run', container]);
    const [running] = JSON.parse((await podman(['container', 'inspect', container])).stdout) as { HostConfig: { ReadonlyRootfs: boolean } }[];
    expect(running!.HostConfig.ReadonlyRootfs).toBe(true);
    // Production dependencies only: no test or build tools in the image.
    await expect(podman(['exec', container, 'test', '-e', 'node_modules/jest'])).rejects.toThrow();
    await expect(podman(['exec', container, 'test', '-e', 'node_modules/vite'])).rejects.toThrow();
    expect((await podman(['exec', container, 'sh', '-c', 'command -v record-ops'])).stdout.trim()).toBe('/usr/local/bin/record-ops');
  });

  it('signs people in and seals a record', async () => {
    const sealed = await sealTwoPartyAgreement(remoteApp([url], smtp));
    expect(sealed.reference).toMatch(/^AGR-/);
    // The sealed PDF is made by a render thread in the container (canvas and its libraries).
    const pdf = await waitFor(async () => {
      const response = await fetch(`${url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } });
      return response.status === 200 ? Buffer.from(await response.arrayBuffer()) : null;
    }, 60_000);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 120_000);

  it('answers `record-ops migrate` in the image: nothing left to apply', async () => {
    const { stdout } = await podman(['exec', container, 'record-ops', 'migrate']);
    expect(stdout).toBe('migrate: the database is up to date\n');
  });

  it('stops cleanly on `podman stop` (SIGTERM): exit 0 within the grace period, its clean stop logged', async () => {
    const signalled = Date.now();
    await podman(['stop', '--time', '40', container], { timeout: 60_000 });
    const stopMs = Date.now() - signalled;
    const [state] = JSON.parse((await podman(['container', 'inspect', container])).stdout) as { State: { ExitCode: number } }[];
    expect(state!.State.ExitCode).toBe(0);
    const lines = (await podman(['logs', container])).stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; signal?: string });
    expect(lines.find((line) => line.msg === 'shutting down')).toMatchObject({ signal: 'SIGTERM' });
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped cleanly', signal: 'SIGTERM' });
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    // SHUTDOWN_DRAIN_MS (5 s) and the steps, well inside SHUTDOWN_TIMEOUT_MS (30 s) and the 40 s given.
    expect(stopMs).toBeLessThan(30_000);
    console.log(`container stop: ${stopMs} ms from \`podman stop\` to exit 0`);
  }, 90_000);
});
