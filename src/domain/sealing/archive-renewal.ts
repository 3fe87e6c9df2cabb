import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { ArtifactStore } from './artifact-store.js';
import type { SealRenderer } from './renderer.js';

export type ArchiveRenewalSettings = {
  /** SEAL_TSA_URLS: without an authority nothing can be renewed. */
  tsaUrls: string[];
  /** ARCHIVE_RENEW_BEFORE_DAYS: renew this long before the newest timestamp's certificate expires. */
  renewBeforeDays: number;
  tsaTimeoutMs?: number;
};

export type RenewalOutcome = {
  recordId: string;
  renewed: boolean;
  version?: number;
  sha256?: string;
  reason?: string;
  /** Why nothing was stored: the authorities failed, their certificates would not extend the file, or another instance renewed it first. */
  outcome?: 'failed' | 'not_extended' | 'renewed_elsewhere';
  /** After an automatic attempt that stored nothing: when the PDF is due again. */
  nextAttemptAt?: Date;
};

/** How long a PDF waits after an automatic attempt that stored nothing: an authority down may be back within hours; a certificate too short stays so for a while. */
const WAIT_AFTER_MS = { failed: 6 * 3_600_000, not_extended: 24 * 3_600_000 } as const;

/**
 * Keeps B-LTA sealed PDFs verifiable past every certificate they rely on: before the newest
 * timestamp's certificate expires, a DSS update with fresh validation data and a new document
 * timestamp are appended (on a render thread), as new incremental revisions: the earlier bytes stay
 * as they were, so every earlier version keeps its hash and still verifies. The renewed PDF is what
 * `/document` serves; `sealed_document_versions` keeps every version's hash.
 */
export class ArchiveRenewal {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      artifactStore: ArtifactStore;
      renderer: SealRenderer;
      clock: Clock;
      settings: ArchiveRenewalSettings;
      logger: Logger;
    },
  ) {}

  /**
   * Sealed PDFs whose newest timestamp's certificate expires within the renewal window, soonest first,
   * but those an attempt that stored nothing put off (`archive_next_attempt_at`).
   */
  async due(limit = 50): Promise<string[]> {
    const now = this.deps.clock.now();
    const horizon = new Date(now.getTime() + this.deps.settings.renewBeforeDays * 86_400_000);
    const rows = await this.deps.orm.em.fork().execute<{ record_id: string }[]>(
      `select record_id from sealed_artifacts
        where kind = 'sealed_pdf' and archive_expires_at is not null and archive_expires_at < ?
          and (archive_next_attempt_at is null or archive_next_attempt_at <= ?)
        order by archive_expires_at limit ?`,
      [horizon, now, limit],
    );
    return rows.map((row) => row.record_id);
  }

  /**
   * Renews every due PDF, one at a time (the hourly job). A PDF that gained nothing is put off: 6 hours
   * when its authorities failed, a day when their certificates would not extend it. So it is not asked
   * about at every run, and PDFs that cannot be renewed do not keep the ones behind them waiting.
   */
  async renewDue(): Promise<RenewalOutcome[]> {
    if (this.deps.settings.tsaUrls.length === 0) return [];
    const outcomes: RenewalOutcome[] = [];
    for (const recordId of await this.due()) {
      const outcome = await this.renew(recordId);
      if (outcome.outcome === 'failed' || outcome.outcome === 'not_extended') {
        outcome.nextAttemptAt = new Date(this.deps.clock.now().getTime() + WAIT_AFTER_MS[outcome.outcome]);
        await this.deps.orm.em.fork().execute(`update sealed_artifacts set archive_next_attempt_at = ? where record_id = ? and kind = 'sealed_pdf'`, [outcome.nextAttemptAt, recordId]);
        this.deps.logger.info({ recordId, nextAttemptAt: outcome.nextAttemptAt.toISOString() }, 'sealed PDF archive renewal put off');
      }
      outcomes.push(outcome);
    }
    return outcomes;
  }

  /**
   * Appends a new archive timestamp to a record's sealed PDF. The authority is asked outside any
   * transaction; the new version is stored only if the PDF is still the one read (another instance
   * may have renewed it meanwhile: then this answer is dropped).
   */
  async renew(recordId: string): Promise<RenewalOutcome> {
    const current = await this.deps.artifactStore.read(this.deps.orm.em.fork(), recordId, 'sealed_pdf');
    if (!current) return { recordId, renewed: false, reason: 'no sealed PDF' };
    try {
      const renewed = await this.deps.renderer.renewArchive(new Uint8Array(current.bytes), { tsaUrls: this.deps.settings.tsaUrls, tsaTimeoutMs: this.deps.settings.tsaTimeoutMs });
      // A timestamp whose certificate expires no later than the newest one in the file gains nothing, and
      // storing it would grow the file at every run while the PDF stays due: it is dropped.
      const before = current.artifact.archiveExpiresAt;
      if (!renewed.archiveExpiresAt || (before && renewed.archiveExpiresAt.getTime() <= new Date(before).getTime())) {
        this.deps.logger.warn({ recordId, archiveExpiresAt: renewed.archiveExpiresAt?.toISOString() ?? null }, 'archive timestamp not renewed: the authority\'s certificate expires no later than the newest timestamp\'s in the file');
        return { recordId, renewed: false, outcome: 'not_extended', reason: 'the authority\'s certificate expires no later than the newest timestamp\'s' };
      }
      const stored = await this.deps.orm.em.fork().transactional((em) =>
        this.deps.artifactStore.renew(em, { recordId, previousSha256: current.artifact.sha256, bytes: renewed.bytes, level: current.artifact.level ?? 'B-LTA', archiveExpiresAt: renewed.archiveExpiresAt }),
      );
      if (!stored) return { recordId, renewed: false, outcome: 'renewed_elsewhere', reason: 'renewed meanwhile by another instance' };
      this.deps.logger.info(
        { recordId, version: stored.version, documentHash: stored.sha256, archiveExpiresAt: renewed.archiveExpiresAt?.toISOString() ?? null, authority: renewed.documentTimestampUrl, warnings: renewed.validationWarnings },
        'sealed PDF archive timestamp renewed',
      );
      return { recordId, renewed: true, version: stored.version, sha256: stored.sha256 };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.deps.logger.warn({ recordId, reason }, 'sealed PDF archive timestamp renewal failed');
      return { recordId, renewed: false, outcome: 'failed', reason };
    }
  }
}
