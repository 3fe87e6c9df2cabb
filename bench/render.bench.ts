/**
 * What sealing's render threads do alone, with 1 and with 2 threads (SEAL_WORKERS): each seal draws
 * its share card and lays out and signs its PDF, as the artifact job does (both at once, twice as many
 * seals in flight as threads), with the development seal key. Nothing else runs: no service, no
 * database, no chain. Prints seals/s, the ratio of 2 threads to 1 and the CPU a seal costs (every
 * thread of the process), asserting nothing: whether the drawing scales with threads when cores are
 * free (the sealing bench says what the service does with the cores it shares with its own main
 * thread and PostgreSQL).
 *
 *   BENCH_ONLY=render npm run bench
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../src/domain/ceremonies/identicon.js';
import type { SealedPdfInput } from '../src/domain/sealing/pdf-input.js';
import { threadRenderer } from '../src/domain/sealing/renderer.js';
import { loadSealKey } from '../src/domain/sealing/seal-key.js';
import { selected } from './support.js';

if (!selected('render')) process.exit(0);
/** Issue 50's goal: the CPU a seal costs in the render threads (card, PDF, signature). */
const SEAL_CPU_GOAL_MS = 15;
const SEALS = Number(process.env.BENCH_RENDER_SEALS ?? 120);

/** A sealed agreement like the sealing bench's: a short body, two signers, a trail of eight entries. */
function sealOf(i: number): SealedPdfInput {
  const reference = `AGR-RNDR-${String(i).padStart(4, '0')}`;
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 25, 9, minutes));
  const metadata = Buffer.from(JSON.stringify({ agr_reference: reference, version: 1 }));
  const metadataHex = sha256Hex([metadata.toString()]);
  const auditTrail = ['create', 'submit', 'execution_started', 'method_satisfied', 'finalized', 'method_satisfied', 'finalized', 'complete_signatures'].map((move, index) => ({
    seq: index + 1,
    at: at(index),
    actorRole: index < 5 ? ('initiator' as const) : ('party' as const),
    move,
    version: 1,
    entryHash: `sha256:${sha256Hex([reference, move, String(index)])}`,
  }));
  return {
    reference,
    recordType: 'agreement',
    title: `Render benchmark agreement ${i}`,
    body: `Render benchmark agreement ${i}: we agree to measure.`,
    version: 1,
    createdAt: at(0),
    sealedAt: at(9),
    metadataHash: `sha256:${metadataHex}`,
    documentIdenticon: { digestHex: metadataHex, altText: `Document identicon of ${reference}` },
    verificationUrl: `https://sign.example.org/verify/${reference}`,
    participants: [
      { role: 'initiator', displayName: 'Initiator', status: 'signed', signedVersion: 1, signedAt: at(4), methods: [{ type: 'email_otp', satisfiedAt: at(3) }], signatureDigestHex: sha256Hex([reference, 'initiator']) },
      { role: 'party', displayName: 'Party', status: 'signed', signedVersion: 1, signedAt: at(6), methods: [{ type: 'email_otp', satisfiedAt: at(5) }], signatureDigestHex: sha256Hex([reference, 'party']) },
    ],
    auditTrail,
    attachments: { sealedMetadataJson: metadata, auditTrailJson: Buffer.from(JSON.stringify(auditTrail)) },
  };
}

const workDir = await mkdtemp(path.join(tmpdir(), 'render-bench-'));
try {
  const key = await loadSealKey({ production: false, localDir: workDir });
  const rates = new Map<number, number>();
  /** The process's CPU (every thread: render threads, libuv's pool, V8's helpers) a seal, milliseconds. */
  const cpu = new Map<number, number>();
  for (const threads of [1, 2]) {
    const renderer = threadRenderer(threads);
    const seal = async (i: number) => {
      const input = sealOf(i);
      await Promise.all([
        renderer.card({ title: input.title ?? input.reference, reference: input.reference, status: 'sealed', sealedAt: input.sealedAt, recordType: 'agreement', documentIdenticon: input.documentIdenticon }),
        renderer.signedPdf(input, { key: key.signingMaterial(), options: { reason: `Sealed record ${input.reference}`, signingTime: input.sealedAt } }),
      ]);
    };
    /** `count` seals, `2 x threads` in flight at a time (the artifact job's concurrency). */
    const run = async (from: number, count: number) => {
      let next = from;
      await Promise.all(Array.from({ length: 2 * threads }, async () => {
        while (next < from + count) await seal(next++);
      }));
    };
    await run(0, 4 * threads);
    const started = performance.now();
    const used = process.cpuUsage();
    await run(1000, SEALS);
    rates.set(threads, SEALS / ((performance.now() - started) / 1000));
    const spent = process.cpuUsage(used);
    cpu.set(threads, (spent.user + spent.system) / 1000 / SEALS);
    await renderer.close();
  }
  const one = rates.get(1)!;
  console.log(`\nrender threads alone: ${SEALS} seals (card + signed PDF each), ${cpus().length} cores, nothing else running`);
  console.log('\n| render threads | seals/s | ratio to 1 thread | CPU a seal (all threads) | goal (CPU a seal) | met |\n|---|---|---|---|---|---|');
  for (const [threads, rate] of rates) {
    const spent = cpu.get(threads)!;
    console.log(`| ${threads} | ${rate.toFixed(1)} | ${(rate / one).toFixed(2)} | ${spent.toFixed(1)} ms | <= ${SEAL_CPU_GOAL_MS} ms | ${spent <= SEAL_CPU_GOAL_MS ? 'yes' : 'NO'} |`);
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
