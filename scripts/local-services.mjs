/**
 * Helpers shared by the project-local services (local-postgres.mjs, local-chain.mjs): plain Node ESM,
 * builtins only. Each service passes its own error class and names, so messages stay its own.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function portIsFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The port to listen on: the one in env[envVar] (error if taken), else defaultPort or the next free one
 * up to defaultPort + fallbacks. urlVar names the variable that avoids the local service altogether.
 */
export async function choosePort({ envVar, urlVar, defaultPort, fallbacks, ErrorClass, log }) {
  const explicit = process.env[envVar];
  if (explicit) {
    const port = Number(explicit);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ErrorClass(`${envVar}=${explicit} is not a port number`);
    }
    if (!(await portIsFree(port))) {
      throw new ErrorClass(`port ${port} (${envVar}) is already in use by another program; choose another`);
    }
    return port;
  }
  for (let port = defaultPort; port <= defaultPort + fallbacks; port++) {
    if (await portIsFree(port)) {
      if (port !== defaultPort) log(`port ${defaultPort} is taken by another program, using ${port}`);
      return port;
    }
  }
  throw new ErrorClass(`ports ${defaultPort}-${defaultPort + fallbacks} are all in use; set ${envVar} or ${urlVar}`);
}

export function tail(file, lines = 25) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function lockIsStale(lockDir, staleMs) {
  try {
    const st = fs.statSync(lockDir);
    if (Date.now() - st.mtimeMs > staleMs) return true;
    let pid;
    try {
      pid = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    } catch {
      return Date.now() - st.mtimeMs > 10_000; // the owner has not written its pid yet
    }
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return e.code === 'ESRCH' || e.code === 'ENOENT';
  }
}

/**
 * Runs fn holding a lock folder (mkdir is atomic), so concurrent callers of a start/stop serialize.
 * A lock whose owner died, or older than waitMs, is taken over.
 */
export async function withLockDir(lockDir, fn, { waitMs, ErrorClass, log }) {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  const startedAt = Date.now();
  const deadline = startedAt + waitMs;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    if (lockIsStale(lockDir, waitMs)) {
      fs.rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new ErrorClass(`timed out waiting for the lock ${lockDir}`);
    if (!announced && Date.now() - startedAt > 3000) {
      log(`waiting for another process holding ${lockDir}`);
      announced = true;
    }
    await sleep(200);
  }
  try {
    fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Runs main(argv[2]) and exits with its code when the module at moduleUrl is the program itself. */
export function runAsCli(moduleUrl, main, { name, ErrorClass }) {
  let invokedAs = '';
  try {
    invokedAs = pathToFileURL(fs.realpathSync(process.argv[1] ?? '')).href;
  } catch {
    // imported from a program whose argv[1] is not a file
  }
  if (invokedAs !== moduleUrl) return;
  main(process.argv[2]).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${name}: ${error instanceof ErrorClass ? error.message : error.stack}\n`);
      process.exit(1);
    },
  );
}
