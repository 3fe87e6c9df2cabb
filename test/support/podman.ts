import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Debian's podman as it works inside these machines (../shared/STACK.md, "Containers here"): no default
 * ulimits (the sandbox refuses setrlimit), runc with cgroupfs (crun refuses the hybrid cgroup layout),
 * host networking for `run` and `build` (no bridge). Every call here passes those settings.
 */
const GLOBAL_FLAGS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];

function onPath(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, command);
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

/** The containers.conf these settings need, written once per machine. */
function containersConf(): string {
  const file = path.join(os.tmpdir(), 'rss-containers.conf');
  if (!fs.existsSync(file)) fs.writeFileSync(file, '[containers]\ndefault_ulimits = []\n');
  return file;
}

function podmanEnv(): NodeJS.ProcessEnv {
  return { ...process.env, CONTAINERS_CONF: containersConf() };
}

/** podman-compose's path, or null. */
export function podmanCompose(): string | null {
  return onPath('podman-compose');
}

/** Why podman cannot run containers here (not installed, not root, `podman info` fails), or null when it can. */
export function podmanUnavailable(): string | null {
  if (!onPath('podman')) return 'podman is not installed';
  if (process.getuid?.() !== 0) return 'podman here needs root (rootful storage)';
  if (!onPath('debootstrap')) return 'debootstrap is not installed (the base image is made with it)';
  const info = spawnSync('podman', [...GLOBAL_FLAGS, 'info'], { env: podmanEnv(), encoding: 'utf8', timeout: 60_000 });
  if (info.status !== 0) return `podman info failed: ${(info.stderr || info.error?.message || '').trim().split('\n').slice(-1)[0]}`;
  return null;
}

/** Runs podman with this machine's settings; rejects on a non-zero exit with its stderr. */
export function podman(args: string[], options: { timeout?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('podman', [...GLOBAL_FLAGS, ...args], { env: { ...podmanEnv(), ...options.env }, timeout: options.timeout ?? 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`podman ${args.slice(0, 2).join(' ')} failed (${error.code ?? error.signal}): ${stderr.slice(-4000)}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** The environment `sh scripts/container-base.sh` needs to reach podman with these settings. */
export function containerScriptEnv(): NodeJS.ProcessEnv {
  return podmanEnv();
}
