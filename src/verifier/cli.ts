#!/usr/bin/env node
/**
 * record-verify: verifies a sealed record with a chain node and nothing from the service.
 *
 *   record-verify <sealed.pdf> --rpc <url> [--registry <address>] [--seal-fingerprint <hex>] [--json]
 *   record-verify --metadata <sealed-metadata.json> (--file <path> | --content-hash sha256:<hex>) --rpc <url> [--registry <address>] [--json]
 *
 * Exit code: 0 verified; 1 a check failed (the reason is printed); 2 wrong usage or unreadable input.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyNotarization, verifySealedPdf, type VerificationReport } from './verify.js';

export const USAGE = `usage:
  record-verify <sealed.pdf> --rpc <url> [--registry <address>] [--seal-fingerprint <sha256 hex>] [--json]
  record-verify --metadata <sealed-metadata.json> (--file <path> | --content-hash sha256:<hex>) --rpc <url> [--registry <address>] [--json]`;

export type Io = { out: (text: string) => void; err: (text: string) => void };

const stdio: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

function render(result: VerificationReport): string {
  const lines = result.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check.padEnd(9)} ${c.detail}`);
  lines.push('', result.verdict === 'verified' ? 'VERIFIED: every check holds.' : `NOT VERIFIED: ${result.reason}`);
  return `${lines.join('\n')}\n`;
}

/** Runs the tool; resolves to the exit code. */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        rpc: { type: 'string' },
        registry: { type: 'string' },
        'seal-fingerprint': { type: 'string' },
        metadata: { type: 'string' },
        file: { type: 'string' },
        'content-hash': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.err(`record-verify: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const usage = (message: string) => {
    io.err(`record-verify: ${message}\n${USAGE}\n`);
    return 2;
  };
  if (!values.rpc) return usage('--rpc <url> is required (any node of the chain the record was anchored on)');
  const chain = { rpcUrl: values.rpc, registryAddress: values.registry };
  const read = (path: string) => new Uint8Array(fs.readFileSync(path));

  let result: VerificationReport;
  try {
    if (values.metadata) {
      if (positionals.length > 0) return usage('give either a PDF or --metadata, not both');
      if (Boolean(values.file) === Boolean(values['content-hash'])) return usage('--metadata needs exactly one of --file or --content-hash');
      const content = values.file ? { file: read(values.file) } : { contentHash: values['content-hash']! };
      result = await verifyNotarization(read(values.metadata), content, chain);
    } else {
      if (positionals.length !== 1) return usage('give one sealed PDF');
      result = await verifySealedPdf(read(positionals[0]!), { ...chain, sealFingerprint: values['seal-fingerprint'] });
    }
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    io.err(`record-verify: ${e.code === 'ENOENT' ? `no such file: ${e.path}` : e.message}\n`);
    return 2;
  }
  io.out(values.json ? `${JSON.stringify(result, null, 2)}\n` : render(result));
  return result.verdict === 'verified' ? 0 : 1;
}

const invokedDirectly = process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url).pathname);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`record-verify: ${(error as Error).message}\n`);
      process.exit(2);
    },
  );
}
