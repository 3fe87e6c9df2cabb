import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The shortest SERVER_SECRET accepted: 32 characters (a random 32-byte value in base64url is 43). */
const SERVER_SECRET_MIN_LENGTH = 32;

/**
 * The service's own secret, the key of every hash kept to compare a short secret later (one-time
 * codes: six digits are 10^6 guesses, so an unkeyed hash of a row gives the code back in under a
 * second). SERVER_SECRET when set; required in production; otherwise generated once under
 * LOCAL_STATE_DIR/secret and kept (several processes may start at once: the first file written wins).
 */
export async function loadServerSecret(options: { value: string | undefined; production: boolean; localDir: string }): Promise<Buffer> {
  if (options.value !== undefined) {
    if (options.value.length < SERVER_SECRET_MIN_LENGTH) throw new Error(`SERVER_SECRET must be at least ${SERVER_SECRET_MIN_LENGTH} characters`);
    return Buffer.from(options.value, 'utf8');
  }
  if (options.production) {
    throw new Error('SERVER_SECRET is required in production (at least 32 random characters; it keys the stored hashes of one-time codes)');
  }
  const file = path.join(options.localDir, 'secret', 'server-secret');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'utf8');
}
