#!/usr/bin/env node
/**
 * record-verify: verifies a sealed record with a chain node and nothing from the service.
 *
 *   record-verify <sealed.pdf> --rpc <url> [--registry <address>] [--seal-fingerprint <hex>] [--trust <cert.pem>]... [--at <date>] [--json]
 *   record-verify --metadata <sealed-metadata.json> (--file <path> | --content-hash sha256:<hex>) --rpc <url> [--registry <address>] [--json]
 *   record-verify --manifest <manifest.csv | export.zip> [--rpc <url>] [--seal-fingerprint <hex>] [--trust <cert.pem>]... [--at <date>] [--json]
 *
 * Exit code: 0 verified; 1 a check failed (the reason is printed); 2 wrong usage or unreadable input.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyNotarization, verifySealedPdf, type VerificationReport } from './verify.js';
import { verifyManifest, type ManifestLine, type ManifestOptions } from './manifest.js';

export const USAGE = `usage:
  record-verify <sealed.pdf> --rpc <url> [--registry <address>] [--seal-fingerprint <sha256 hex>] [--trust <cert.pem>]... [--at <date>] [--json]

  --trust <cert.pem>  a certificate you trust (PEM or DER; repeatable): the seal and every timestamp
                      authority must chain to one of them
  --at <date>         validate as of this time (ISO 8601; default now): after a certificate expires,
                      only the PDF's timestamps keep the seal valid
  record-verify --metadata <sealed-metadata.json> (--file <path> | --content-hash sha256:<hex>) --rpc <url> [--registry <address>] [--json]
  record-verify --manifest <manifest.csv | export.zip> [--rpc <url>] [--seal-fingerprint <sha256 hex>] [--trust <cert.pem>]... [--at <date>] [--json]

  --manifest          every sealed PDF of an export, in one run: its seal, and its document and metadata
                      hashes against the manifest's row (files relative to the manifest's folder, or read
                      from the export's ZIP); offline unless --rpc is given (then each anchor is checked too)`;

export type Io = { out: (text: string) => void; err: (text: string) => void };

const stdio: Io = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** The certificates of a PEM file (every CERTIFICATE block), or the file itself as DER. */
function certificatesIn(bytes: Uint8Array, file: string): Uint8Array[] {
  const text = Buffer.from(bytes).toString('latin1');
  if (!text.includes('-----BEGIN')) return [bytes];
  const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')));
  if (blocks.length === 0) throw new Error(`${file} holds no CERTIFICATE block`);
  return blocks;
}

function render(result: VerificationReport): string {
  const lines = result.checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check.padEnd(9)} ${c.detail}`);
  const pades = result.pades;
  if (pades?.level) {
    lines.push('', `PAdES level ${pades.level}; ${pades.revisions} revision${pades.revisions === 1 ? '' : 's'}, the seal signs revision ${pades.sealRevision}`);
    for (const t of pades.timestamps) lines.push(`  ${t.ok ? 'valid  ' : 'INVALID'} ${t.kind === 'signature' ? 'signature timestamp' : `document timestamp, revision ${t.revision}`}: ${t.time ?? '?'} by ${t.authority?.subject ?? '?'}`);
    if (pades.dss) {
      lines.push(`  DSS: ${pades.dss.certificates.length} certificate${pades.dss.certificates.length === 1 ? '' : 's'}, ${pades.dss.ocspResponses} OCSP answer${pades.dss.ocspResponses === 1 ? '' : 's'}, ${pades.dss.crls.length} CRL${pades.dss.crls.length === 1 ? '' : 's'}`);
      for (const c of pades.dss.certificates) lines.push(`    certificate ${c.subject} (SHA-256 ${c.fingerprint})`);
      for (const crl of pades.dss.crls) lines.push(`    CRL of ${crl.issuer}, ${crl.thisUpdate}, ${crl.revoked} revoked`);
    } else lines.push('  DSS: none');
  }
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
        trust: { type: 'string', multiple: true },
        at: { type: 'string' },
        metadata: { type: 'string' },
        file: { type: 'string' },
        'content-hash': { type: 'string' },
        manifest: { type: 'string' },
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
  const read = (path: string) => new Uint8Array(fs.readFileSync(path));
  if (values.manifest) {
    if (positionals.length > 0 || values.metadata) return usage('give --manifest alone, without a PDF or --metadata');
    const at = values.at ? new Date(values.at) : undefined;
    if (at && Number.isNaN(at.getTime())) return usage(`--at ${values.at} is not a date (ISO 8601, e.g. 2040-01-31 or 2040-01-31T12:00:00Z)`);
    return manifestRun(values.manifest, { rpcUrl: values.rpc, registryAddress: values.registry, sealFingerprint: values['seal-fingerprint'], at, trust: (values.trust ?? []).flatMap((file) => certificatesIn(read(file), file)) }, values.json, io);
  }
  if (!values.rpc) return usage('--rpc <url> is required (any node of the chain the record was anchored on)');
  const chain = { rpcUrl: values.rpc, registryAddress: values.registry };

  let result: VerificationReport;
  try {
    if (values.metadata) {
      if (positionals.length > 0) return usage('give either a PDF or --metadata, not both');
      if (Boolean(values.file) === Boolean(values['content-hash'])) return usage('--metadata needs exactly one of --file or --content-hash');
      const content = values.file ? { file: read(values.file) } : { contentHash: values['content-hash']! };
      result = await verifyNotarization(read(values.metadata), content, chain);
    } else {
      if (positionals.length !== 1) return usage('give one sealed PDF');
      const at = values.at ? new Date(values.at) : undefined;
      if (at && Number.isNaN(at.getTime())) return usage(`--at ${values.at} is not a date (ISO 8601, e.g. 2040-01-31 or 2040-01-31T12:00:00Z)`);
      const trust = (values.trust ?? []).flatMap((file) => certificatesIn(read(file), file));
      result = await verifySealedPdf(read(positionals[0]!), { ...chain, sealFingerprint: values['seal-fingerprint'], at, trust });
    }
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    io.err(`record-verify: ${e.code === 'ENOENT' ? `no such file: ${e.path}` : e.message}\n`);
    return 2;
  }
  io.out(values.json ? `${JSON.stringify(result, null, 2)}\n` : render(result));
  return result.verdict === 'verified' ? 0 : 1;
}

/** `--manifest`: one line per record, then the count; exit 0 only when no PDF failed. */
async function manifestRun(source: string, options: ManifestOptions, json: boolean, io: Io): Promise<number> {
  let lines: ManifestLine[];
  try {
    lines = await verifyManifest(source, options, json ? undefined : (line) => io.out(`${line.outcome === 'verified' ? 'ok  ' : line.outcome === 'skipped' ? 'skip' : 'FAIL'} ${line.reference} ${line.file ? `${line.file}: ` : ''}${line.detail}\n`));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    io.err(`record-verify: ${e.code === 'ENOENT' ? `no such file: ${e.path}` : e.message}\n`);
    return 2;
  }
  const count = (outcome: ManifestLine['outcome']) => lines.filter((line) => line.outcome === outcome).length;
  const failed = count('failed');
  if (json) io.out(`${JSON.stringify({ verified: count('verified'), failed, skipped: count('skipped'), records: lines.map(({ report: _report, ...line }) => line) }, null, 2)}\n`);
  else {
    io.out(`\n${count('verified')} verified, ${failed} failed, ${count('skipped')} skipped (no PDF)${options.rpcUrl ? '' : '; anchors not checked (offline: give --rpc to check them)'}\n`);
    io.out(failed === 0 ? 'VERIFIED: every PDF of the export holds.\n' : `NOT VERIFIED: ${failed} PDF${failed === 1 ? '' : 's'} failed.\n`);
  }
  return failed === 0 ? 0 : 1;
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
