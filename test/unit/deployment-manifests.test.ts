import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { parse, parseAllDocuments } from 'yaml';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js';
import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';
import { podmanCompose } from '../support/podman.js';

const repo = path.resolve(import.meta.dirname, '../..');
const manifestsDir = path.join(repo, 'deploy/kubernetes');

type Manifest = { apiVersion: string; kind: string; metadata?: { name?: string }; [key: string]: any };

/** The classes that validate each kind against the Kubernetes schemas (kubernetes-models). */
const MODELS: Record<string, new (data: any) => { validate: () => void }> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

/**
 * What the deployment files may set that the service does not read: each is read by someone else.
 * Everything else they set must be a variable of src/config.ts (a misspelt one would be silently ignored).
 */
const READ_BY_OTHERS: Record<string, string> = {
  HEAP_LIMIT_MIB: "the image's command (--max-old-space-size), as npm start reads it",
  POSTGRES_PASSWORD: 'the PostgreSQL container of compose.yaml',
};

const files = fs.readdirSync(manifestsDir).filter((file) => /\.ya?ml$/.test(file)).sort();
const manifests: { file: string; object: Manifest }[] = files.flatMap((file) =>
  parseAllDocuments(fs.readFileSync(path.join(manifestsDir, file), 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map(String).join('; ')}`);
    return { file, object: document.toJS() as Manifest };
  }),
);
const objects = manifests.map((m) => m.object).filter((object) => object.kind !== 'Kustomization');
const one = <T extends Manifest>(kind: string, name?: string) => objects.find((o) => o.kind === kind && (!name || o.metadata?.name === name)) as T;
const compose = parse(fs.readFileSync(path.join(repo, 'compose.yaml'), 'utf8')) as { services: Record<string, any>; volumes: Record<string, unknown> };
const envExample = fs
  .readFileSync(path.join(repo, '.env.example'), 'utf8')
  .split('\n')
  .map((line) => /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
  .filter((name): name is string => name !== undefined);
const defaults = loadConfig({ DATABASE_URL: 'postgres://localhost/x' });

function podSpecs(): { name: string; spec: any }[] {
  return objects.flatMap((o) => (o.kind === 'Deployment' || o.kind === 'Job' ? [{ name: `${o.kind}/${o.metadata?.name}`, spec: o.spec.template.spec }] : []));
}

describe('deployment manifests (deploy/kubernetes)', () => {
  it('are each valid against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThanOrEqual(7);
    for (const { file, object } of manifests) {
      if (object.kind === 'Kustomization') continue;
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model) throw new Error(`${file}: no schema check for ${object.apiVersion} ${object.kind} (add it to MODELS)`);
      expect(() => new Model(object).validate()).not.toThrow();
    }
  });

  it('refuse what the schemas refuse (the check is real)', () => {
    const deployment = structuredClone(one('Deployment'));
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'three thousand';
    expect(() => new Deployment(deployment).validate()).toThrow();
  });

  it('list only files that exist in kustomization.yaml', () => {
    const kustomization = manifests.find((m) => m.object.kind === 'Kustomization')!.object as unknown as { resources: string[] };
    for (const resource of kustomization.resources) expect(fs.existsSync(path.join(manifestsDir, resource))).toBe(true);
    expect(kustomization.resources).not.toContain('secret.example.yaml');
  });

  it('set only variables the service reads (or that the table above names)', () => {
    const set = new Set<string>();
    for (const object of objects) {
      if (object.kind === 'ConfigMap' || object.kind === 'Secret') for (const name of Object.keys({ ...object.data, ...object.stringData })) set.add(name);
    }
    for (const { spec } of podSpecs()) for (const container of spec.containers) for (const variable of container.env ?? []) set.add(variable.name as string);
    const unknown = [...set].filter((name) => !CONFIG_VARIABLES.includes(name) && !(name in READ_BY_OTHERS));
    expect(unknown).toEqual([]);
    expect(set).toContain('DATABASE_DIRECT_URL');
  });

  it('probe routes the service serves: readiness /health/ready, liveness and start-up /health', () => {
    const document = buildOpenApiDocument();
    const container = one('Deployment').spec.template.spec.containers[0];
    expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(container.livenessProbe.httpGet.path).toBe('/health');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      expect(document.paths[probe.httpGet.path]?.get).toBeDefined();
      expect(probe.httpGet.port).toBe(container.ports[0].name);
    }
  });

  it('give the clean stop its time: the grace period covers preStop, SHUTDOWN_DRAIN_MS and SHUTDOWN_TIMEOUT_MS', () => {
    const pod = one('Deployment').spec.template.spec;
    const config = one('ConfigMap', 'record-signing-config').data as Record<string, string>;
    const drainMs = Number(config.SHUTDOWN_DRAIN_MS ?? defaults.shutdown.drainMs);
    const timeoutMs = Number(config.SHUTDOWN_TIMEOUT_MS ?? defaults.shutdown.timeoutMs);
    expect(drainMs).toBe(defaults.shutdown.drainMs);
    expect(timeoutMs).toBe(defaults.shutdown.timeoutMs);
    const preStop = pod.containers[0].lifecycle.preStop.exec.command as string[];
    expect(preStop[0]).toBe('sleep');
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(Number(preStop[1]) + (drainMs + timeoutMs) / 1000);
  });

  it('migrate in a Job with `record-ops migrate`, and start the Deployment without migrating', () => {
    const job = one('Job').spec.template.spec;
    expect(job.containers[0].command).toEqual(['record-ops', 'migrate']);
    expect(job.containers[0].image).toBe(one('Deployment').spec.template.spec.containers[0].image);
    const env = one('Deployment').spec.template.spec.containers[0].env as { name: string; value: string }[];
    expect(env).toContainEqual({ name: 'MIGRATE_ON_START', value: 'false' });
  });

  it('run as non-root on a read-only root filesystem, writable only where volumes are mounted', () => {
    for (const { name, spec } of podSpecs()) {
      expect([name, spec.securityContext.runAsNonRoot]).toEqual([name, true]);
      expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
      for (const container of spec.containers) {
        expect([name, container.securityContext]).toEqual([name, expect.objectContaining({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } })]);
        const mounts = (container.volumeMounts as { mountPath: string }[]).map((mount) => mount.mountPath);
        expect(mounts).toContain('/tmp');
        expect(container.resources.limits.memory).toBeDefined();
      }
    }
    const app = one('Deployment').spec.template.spec.containers[0];
    expect(app.volumeMounts.map((mount: { mountPath: string }) => mount.mountPath)).toContain(app.env.find((v: { name: string }) => v.name === 'LOCAL_STATE_DIR').value);
    // The memory request holds the bench's resident peak (about 260-290 MiB with HEAP_LIMIT_MIB 256).
    expect(parseInt(app.resources.requests.memory as string, 10)).toBeGreaterThanOrEqual(300);
  });

  it('name the Secret and the ConfigMap the pods read, and select the Deployment\'s pods', () => {
    const labels = one('Deployment').spec.template.metadata.labels;
    for (const kind of ['Service', 'PodDisruptionBudget']) {
      const selector = one(kind).spec.selector.matchLabels ?? one(kind).spec.selector;
      expect(labels).toMatchObject(selector);
    }
    for (const { spec } of podSpecs()) {
      const sources = spec.containers[0].envFrom.map((source: any) => source.configMapRef?.name ?? source.secretRef?.name);
      expect(sources).toEqual(['record-signing-config', 'record-signing-secrets']);
    }
    expect(one('Secret').metadata?.name).toBe('record-signing-secrets');
    expect(one('HorizontalPodAutoscaler').spec.scaleTargetRef.name).toBe(one('Deployment').metadata?.name);
  });
});

describe('compose.yaml and .env.example', () => {
  const app = compose.services.app;

  it('run the service from the Containerfile after PostgreSQL is healthy, with volumes for both', () => {
    expect(app.build).toMatchObject({ context: '.', dockerfile: 'Containerfile' });
    expect(app.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(app.healthcheck.test).toEqual(['CMD-SHELL', 'node dist/src/healthcheck.js']);
    expect(fs.readFileSync(path.join(repo, 'src/healthcheck.ts'), 'utf8')).toContain('/health/ready');
    expect(app.volumes).toContain('state:/app/.local');
    expect(compose.services.postgres.volumes).toContain('pgdata:/var/lib/postgresql/data');
    expect(Object.keys(compose.volumes)).toEqual(['pgdata', 'state']);
    expect(app.read_only).toBe(true);
    expect(compose.services.mailpit.profiles).toEqual(['mail']);
    expect(compose.services.anvil.profiles).toEqual(['chain']);
    // Longer than the clean stop (SHUTDOWN_TIMEOUT_MS).
    expect(parseInt(app.stop_grace_period as string, 10)).toBeGreaterThan(defaults.shutdown.timeoutMs / 1000);
  });

  it('set only variables the service reads, and .env.example documents what production requires', () => {
    const unknown = [...Object.keys(app.environment), ...envExample].filter((name) => !CONFIG_VARIABLES.includes(name) && !(name in READ_BY_OTHERS));
    expect(unknown).toEqual([]);
    expect(envExample).toEqual(expect.arrayContaining(['SERVER_SECRET', 'SEAL_P12_PASSWORD', 'SMTP_URL', 'PUBLIC_BASE_URL', 'POSTGRES_PASSWORD', 'DATABASE_DIRECT_URL']));
    expect(app.environment.SEAL_P12_PATH).toBe('/run/secrets/seal_p12');
  });

  // podman-compose (Debian's 1.0.3: no `config` command) reads the file as a user's `up` would; a dry run with
  // /bin/true as podman prints the commands it would run and creates nothing. Skipped without podman-compose.
  const composeCli = podmanCompose();
  (composeCli ? it : it.skip)('read by podman-compose into the podman commands of an `up`', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-compose-'));
    try {
      fs.copyFileSync(path.join(repo, 'compose.yaml'), path.join(dir, 'compose.yaml'));
      fs.copyFileSync(path.join(repo, '.env.example'), path.join(dir, '.env'));
      const out = execFileSync(composeCli!, ['--podman-path', '/bin/true', '--dry-run', '-f', 'compose.yaml', 'up', '--no-build', '-d'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 30_000 });
      const run = (service: string) => out.split('\n').find((line) => line.includes(' run ') && line.includes(`com.docker.compose.service=${service} `)) ?? '';
      expect(run('postgres')).toContain("--healthcheck-command /bin/sh -c 'pg_isready");
      expect(run('app')).toContain('-e DATABASE_URL=postgres://record_signing:change-me-to-a-long-random-password@postgres:5432/record_signing');
      expect(run('app')).toMatch(/--read-only .* --cap-drop ALL .* --tmpfs \/tmp -v \S+_state:\/app\/\.local /);
      expect(run('app')).toContain("--healthcheck-command /bin/sh -c 'node dist/src/healthcheck.js'");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

