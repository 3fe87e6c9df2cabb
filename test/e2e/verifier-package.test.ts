import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEVELOPMENT_SIGNER_KEY, EvmAnchorChain } from '../../src/domain/anchoring/evm-chain.js';
import { hashToBytes32 } from '../../packages/verifier/src/anchoring/merkle.js';
import { lastByteRange } from '../../packages/verifier/src/pades.js';
import { startPrivateChain, waitMined, type PrivateChain } from '../support/chain.js';
import { installPackedPackage, type InstalledPackage } from '../support/packed-package.js';
import { canonicalMetadata, makeSealedPdf, makeSealKey, metadataHashOf } from '../support/sealed-pdf-fixture.js';

/** Every file under `folder`. */
const filesUnder = (folder: string): string[] =>
  fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(path.join(folder, entry.name)) : [path.join(folder, entry.name)]));

/**
 * Issue 49: the verifier a stranger installs from its tarball, years from now, without this repository
 * and with the service stopped (none runs in this test): only a chain node answers.
 */
describe('@record-signing/verifier, packed and installed into an empty folder', () => {
  let installed: InstalledPackage;
  let chain: PrivateChain;
  let dir: string;
  const file = (name: string) => path.join(dir, name);

  beforeAll(async () => {
    [installed, chain] = await Promise.all([installPackedPackage('verifier'), startPrivateChain()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verifier-package-pdfs-'));
    // A sealed record as the service makes one: a PAdES-signed PDF carrying canonical sealed metadata, its hash anchored.
    const anchors = await EvmAnchorChain.connect({ rpcUrl: chain.url, signerKey: DEVELOPMENT_SIGNER_KEY, deployIfMissing: true, addressFile: path.join(chain.dir, 'registry.json') });
    const sealKey = makeSealKey('Record Signing Seal');
    const metadata = canonicalMetadata({
      record: { agr_reference: 'AGR-TEST-0049', type: 'agreement', sealed_at: '2026-11-23T01:00:00.000Z' },
      anchor: { network: anchors.networkName(), chain_id: anchors.chainId, registry_address: anchors.registryAddress },
      seal: { certificate_sha256: sealKey.fingerprint },
    });
    fs.writeFileSync(file('sealed.pdf'), await makeSealedPdf({ metadataBytes: metadata, key: sealKey }));
    const prepared = await anchors.prepareBatch([{ hash: hashToBytes32(metadataHashOf(metadata)) }]);
    await anchors.broadcast(prepared.rawTx);
    await waitMined(anchors, prepared.txHash);
  }, 300_000); // tsc, npm pack of the package and its dependencies, npm install, an RSA key and a chain: slow on a loaded machine

  afterAll(async () => {
    await Promise.all([installed?.remove(), chain?.destroy()]);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** No environment but a PATH holding node and npm (and for npx, npm's settings); the child runs in `cwd`, outside this repository. */
  const PATH = [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter);
  const runIn = (cwd: string, command: string, args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)(command, args, { cwd, env: { PATH, ...env }, timeout: 120_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
  /** The installed `record-verify`, run from the empty project. */
  const recordVerify = (...args: string[]) => runIn(installed.project, path.join(installed.project, 'node_modules/.bin/record-verify'), args);

  it('verifies a sealed PDF with a chain node alone: signature, seal key, metadata and anchor', async () => {
    const result = await recordVerify(file('sealed.pdf'), '--rpc', chain.url);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('VERIFIED: every check holds.');
    expect(result.code).toBe(0);

    const json = await recordVerify(file('sealed.pdf'), '--rpc', chain.url, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ verdict: 'verified', anchor: { chainId: 31337, batchSize: 1 } });
  });

  it('fails on a copy with a byte changed after the seal, and on one with bytes appended', async () => {
    const bytes = fs.readFileSync(file('sealed.pdf'));
    const [, firstLength] = lastByteRange(bytes)!;
    const changed = Buffer.from(bytes);
    const at = Math.floor(firstLength / 2); // a byte inside the signed range, in the document's body
    changed[at] = changed[at]! ^ 0x01;
    fs.writeFileSync(file('changed.pdf'), changed);
    fs.writeFileSync(file('appended.pdf'), Buffer.concat([bytes, Buffer.from('\n% appended after the seal\n')]));

    const changedRun = await recordVerify(file('changed.pdf'), '--rpc', chain.url);
    expect(changedRun.code).toBe(1);
    expect(changedRun.stdout).toMatch(/NOT VERIFIED: the signed SHA-256 digest does not match the file's bytes/);
    const appendedRun = await recordVerify(file('appended.pdf'), '--rpc', chain.url);
    expect(appendedRun.code).toBe(1);
    expect(appendedRun.stdout).toContain('NOT VERIFIED');
  });

  it('runs as `npx @record-signing/verifier sealed.pdf --rpc <node>` from an empty folder', async () => {
    const empty = fs.mkdtempSync(path.join(dir, 'npx-'));
    const npmConfig = { HOME: empty, npm_config_registry: installed.registry, npm_config_cache: path.join(empty, '.npm'), npm_config_update_notifier: 'false', npm_config_ignore_scripts: 'true' };
    const result = await runIn(empty, 'npx', ['--yes', '@record-signing/verifier', file('sealed.pdf'), '--rpc', chain.url], npmConfig);
    expect(result.stdout).toContain('VERIFIED: every check holds.');
    expect(result.code).toBe(0);
  });

  it('installs nothing of the service: its files import only node built-ins, its declared dependencies and themselves', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(installed.folder, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const declared = Object.keys(manifest.dependencies);
    const scripts = filesUnder(installed.folder).filter((f) => f.endsWith('.js'));
    expect(scripts.map((f) => path.relative(installed.folder, f))).toContain('dist/cli.js');
    for (const script of scripts) {
      const source = fs.readFileSync(script, 'utf8');
      for (const match of source.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\s*\(?'([^']+)'/g)) {
        const specifier = (match[1] ?? match[2])!;
        if (specifier.startsWith('.')) {
          // Relative imports stay inside the package: nothing under the service's src/.
          expect(path.resolve(path.dirname(script), specifier).startsWith(`${installed.folder}${path.sep}`)).toBe(true);
        } else if (specifier.startsWith('node:')) {
          expect(builtinModules).toContain(specifier.slice('node:'.length));
        } else {
          expect(declared).toContain(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
        }
      }
    }
    // Nor does anything it pulls in bring the service's server, database or ORM.
    const installedPackages = fs.readdirSync(path.join(installed.project, 'node_modules')).flatMap((entry) =>
      entry.startsWith('@') ? fs.readdirSync(path.join(installed.project, 'node_modules', entry)).map((scoped) => `${entry}/${scoped}`) : [entry],
    );
    expect(installedPackages.filter((name) => /^(express|pg|mikro-orm|@mikro-orm\/.*|kysely|agenda|@apollo\/.*|graphql)$/.test(name))).toEqual([]);
  });
});
