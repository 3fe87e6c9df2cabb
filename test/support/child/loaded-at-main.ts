/**
 * Runs the real entry point (src/main.ts) and prints, as one line prefixed `loaded-packages:`, the npm
 * packages whose modules were loaded once it has started; then stops it with SIGTERM. Run as `node
 * --import ./test/support/child/register.mjs test/support/child/loaded-at-main.ts`.
 */
import { recordLoadedPackages } from './package-recorder.js';

const packages = recordLoadedPackages();

// main.ts's top-level await settles once the service listens.
await import('../../../src/main.js');
process.stderr.write(`loaded-packages:${JSON.stringify([...packages].sort())}\n`);
process.kill(process.pid, 'SIGTERM');
