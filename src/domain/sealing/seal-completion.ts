import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { Instruments } from '../shared/instruments.js';
import type { ArtifactStore } from './artifact-store.js';
import type { SealGap } from './entities.js';
import type { SealRenderer } from './renderer.js';
import type { PadesLevel, SignedPdf } from './sign.js';

export type SealCompletionSettings = {
  /** SEAL_TSA_URLS: without an authority a seal is B-B by choice, not degraded. */
  tsaUrls: string[];
  /** SEAL_COMPLETION_RETRY_SECONDS: the first attempt after a degraded seal, and the first wait after a failed one. */
  firstRetrySeconds: number;
  /** SEAL_COMPLETION_RETRY_MAX_SECONDS: the wait doubles after each failed attempt up to this bound. */
  maxRetrySeconds: number;
  tsaTimeoutMs?: number;
};

export type CompletionOutcome = {
  recordId: string;
  /** completed: B-LTA now; improved: a better level stored, still lacking something; failed: nothing stored. */
  outcome: 'completed' | 'improved' | 'failed' | 'completed_elsewhere';
  level?: PadesLevel;
  version?: number;
  missing?: SealGap[];
  nextAttemptAt?: Date;
  reason?: string;
};

const LEVELS: PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

/** What a sealed PDF at `level` lacks of B-LTA. */
export function gapsOf(level: PadesLevel): SealGap[] {
  return { 'B-B': ['timestamp', 'validation_data', 'archive_timestamp'], 'B-T': ['validation_data', 'archive_timestamp'], 'B-LT': ['archive_timestamp'], 'B-LTA': [] }[level] as SealGap[];
}

/**
 * A seal's authorities as a log may show them: the URL without user, password, query or fragment (a
 * timestamp authority's URL may carry credentials), and each failure's reason.
 */
export function describeDegradation(signed: Pick<SignedPdf, 'timestampFailures' | 'validationWarnings'>): { timestampFailures: string[]; validationWarnings: string[] } {
  return {
    timestampFailures: signed.timestampFailures.map((f) => `${withoutSecrets(f.url)}: ${scrub(f.reason)}`),
    validationWarnings: signed.validationWarnings.map(scrub),
  };
}

function withoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}

/** URLs inside a message, without their credentials or query. */
const scrub = (text: string): string => text.replace(/\bhttps?:\/\/[^\s;,)]+/g, (url) => withoutSecrets(url));

/**
 * Degraded seals: sealed PDFs made while their timestamp authorities or revocation servers were down
 * (B-B, B-T or B-LT where the service has authorities and aims at B-LTA). The seal stores what such a
 * PDF lacks and when to try again (`sealed_artifacts.seal_missing`, `seal_completion_next_at`); the
 * completion job (`sealing.complete-degraded-seals`) asks the authorities again on a render thread,
 * a first time within SEAL_COMPLETION_RETRY_SECONDS, then at doubling waits up to
 * SEAL_COMPLETION_RETRY_MAX_SECONDS, and stores each better level it reaches as a new version of the
 * PDF (every revision appended: each earlier version's hash still verifies).
 */
export class SealCompletion {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      artifactStore: ArtifactStore;
      renderer: SealRenderer;
      clock: Clock;
      settings: SealCompletionSettings;
      logger: Logger;
      instruments: Instruments;
    },
  ) {}

  /** The wait after `attempts` failed attempts: doubling from the first, bounded. */
  private waitAfter(attempts: number): number {
    return Math.min(this.deps.settings.firstRetrySeconds * 2 ** Math.max(0, attempts - 1), this.deps.settings.maxRetrySeconds) * 1000;
  }

  /** Degraded seals whose next attempt is due, longest waiting first. */
  async due(limit = 20): Promise<string[]> {
    const rows = await this.deps.orm.em.fork().execute<{ record_id: string }[]>(
      `select record_id from sealed_artifacts
        where kind = 'sealed_pdf' and seal_completion_next_at is not null and seal_completion_next_at <= ?
        order by seal_completion_next_at limit ?`,
      [this.deps.clock.now(), limit],
    );
    return rows.map((row) => row.record_id);
  }

  /** Tries every due seal once (the job's run). */
  async completeDue(): Promise<CompletionOutcome[]> {
    if (this.deps.settings.tsaUrls.length === 0) return [];
    const outcomes: CompletionOutcome[] = [];
    for (const recordId of await this.due()) outcomes.push(await this.complete(recordId));
    return outcomes;
  }

  /**
   * Asks the authorities for what one degraded seal lacks, outside any transaction; stores the result
   * only when it reaches a better level and the PDF is still the one read (another instance may have
   * completed it meanwhile). Otherwise the next attempt is put off.
   */
  async complete(recordId: string): Promise<CompletionOutcome> {
    const current = await this.deps.artifactStore.read(this.deps.orm.em.fork(), recordId, 'sealed_pdf');
    if (!current?.artifact.sealMissing) return { recordId, outcome: 'completed_elsewhere' };
    const attempts = current.artifact.sealCompletionAttempts + 1;
    const before = (current.artifact.level ?? 'B-B') as PadesLevel;
    try {
      const completed = await this.deps.renderer.completeSeal(new Uint8Array(current.bytes), { tsaUrls: this.deps.settings.tsaUrls, tsaTimeoutMs: this.deps.settings.tsaTimeoutMs });
      if (LEVELS.indexOf(completed.level) <= LEVELS.indexOf(before)) {
        const reason = `the authorities answered but the PDF stays ${completed.level}`;
        return await this.putOff(recordId, attempts, reason, describeDegradation(completed));
      }
      const missing = gapsOf(completed.level);
      const nextAttemptAt = missing.length > 0 ? new Date(this.deps.clock.now().getTime() + this.waitAfter(attempts)) : null;
      const stored = await this.deps.orm.em.fork().transactional(async (em) => {
        const renewed = await this.deps.artifactStore.renew(em, {
          recordId,
          previousSha256: current.artifact.sha256,
          bytes: completed.bytes,
          level: completed.level,
          archiveExpiresAt: completed.archiveExpiresAt,
          cause: 'completed',
        });
        if (renewed) {
          await em.execute(
            `update sealed_artifacts set seal_missing = ?::text[], seal_completion_attempts = ?, seal_completion_next_at = ? where record_id = ? and kind = 'sealed_pdf'`,
            [missing.length > 0 ? missing : null, missing.length > 0 ? attempts : 0, nextAttemptAt, recordId],
          );
        }
        return renewed;
      });
      if (!stored) return { recordId, outcome: 'completed_elsewhere' };
      const outcome = missing.length === 0 ? 'completed' : 'improved';
      this.deps.instruments.sealCompletion(outcome);
      const log = { recordId, version: stored.version, documentHash: stored.sha256, fromLevel: before, padesLevel: completed.level, missing, ...describeDegradation(completed) };
      if (missing.length === 0) this.deps.logger.info(log, 'degraded seal completed');
      else this.deps.logger.warn({ ...log, nextAttemptAt: nextAttemptAt!.toISOString() }, 'degraded seal improved, still missing some evidence');
      return { recordId, outcome, level: completed.level, version: stored.version, missing, ...(nextAttemptAt ? { nextAttemptAt } : {}) };
    } catch (error) {
      return this.putOff(recordId, attempts, error instanceof Error ? error.message : String(error));
    }
  }

  private async putOff(recordId: string, attempts: number, reason: string, detail: Partial<ReturnType<typeof describeDegradation>> = {}): Promise<CompletionOutcome> {
    const nextAttemptAt = new Date(this.deps.clock.now().getTime() + this.waitAfter(attempts));
    await this.deps.orm.em.fork().execute(
      `update sealed_artifacts set seal_completion_attempts = ?, seal_completion_next_at = ? where record_id = ? and kind = 'sealed_pdf' and seal_missing is not null`,
      [attempts, nextAttemptAt, recordId],
    );
    this.deps.instruments.sealCompletion('failed');
    this.deps.logger.warn({ recordId, attempts, nextAttemptAt: nextAttemptAt.toISOString(), reason: scrub(reason), ...detail }, 'degraded seal not completed yet');
    return { recordId, outcome: 'failed', reason: scrub(reason), nextAttemptAt };
  }
}
