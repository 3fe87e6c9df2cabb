import type { SqlPool } from '../shared/sql.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { SignedRecord } from '../records/entities.js';
import { RecordSeal, type SealedMetadata } from '../sealing/seal.js';
import { canonicalBytes } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import type { Instruments } from '../shared/instruments.js';
import { recordArtifact, type DomainEvents } from '../shared/events.js';
import { AnchorChainError, type AnchorChain, type AnchorLeaf, type Hex } from '../../../packages/verifier/src/anchoring/chain.js';
import { AnchorBatch } from './entities.js';
import { hashToBytes32 } from '../../../packages/verifier/src/anchoring/merkle.js';

export type AnchoringSettings = {
  /** Seals anchored together in one transaction, at most. */
  batchMax: number;
  /** The longest wait between retries; after it the wait stays there (and is logged). */
  retryMaxSeconds: number;
  /** The first retry's wait; each next one doubles. */
  retryBaseSeconds?: number;
};

/** One anchoring pass at a time across every instance on the database. */
export const ANCHORING_LOCK = 7204123;

/**
 * Anchors seals on the chain: exactly one transaction per seal whatever fails. A batch's signed
 * transaction is stored BEFORE it is broadcast; every later pass re-sends those very bytes (the chain
 * includes them at most once) and re-reads the receipt, so a crash right after a broadcast, an outage
 * or a reorganised block never makes a second anchoring. One batch is in flight at a time (its nonce
 * is the next one); seals that wait meanwhile go into the next batch.
 */
export class AnchoringService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      chain: () => Promise<AnchorChain>;
      events: DomainEvents;
      clock: Clock;
      logger: Logger;
      settings: AnchoringSettings;
      instruments?: Instruments;
      /** Where the pass's session lock is taken: a direct pool behind a pooler (default: the ORM's pool). */
      sessions?: SqlPool | null;
    },
  ) {}

  /** One pass: move the batch in flight on, else start the next one. Returns what changed. */
  async tick(): Promise<{ confirmed: number; prepared: number }> {
    // A session lock is held by one connection: taken and given back on the same one, held for the
    // pass (on two pooled connections the release misses and the lock sticks to the first).
    const pool: SqlPool = this.deps.sessions ?? (await this.deps.orm.em.getConnection().getNativeClient());
    const session = await pool.connect();
    let broken: Error | undefined;
    try {
      const { rows } = await session.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [ANCHORING_LOCK]).catch((error: Error) => {
        throw (broken = error);
      });
      if (!rows[0]?.locked) return { confirmed: 0, prepared: 0 };
      try {
        const inFlight = await this.deps.orm.em.fork().findOne(AnchorBatch, { status: 'prepared' }, { orderBy: { createdAt: 'asc' } });
        if (inFlight) return { confirmed: await this.progress(inFlight), prepared: 0 };
        return { confirmed: 0, prepared: await this.prepareNext() };
      } finally {
        await session.query('select pg_advisory_unlock($1)', [ANCHORING_LOCK]).catch((error: Error) => (broken = error));
      }
    } finally {
      // A connection that failed here is closed, not pooled: the server drops its lock with it.
      session.release(broken);
    }
  }

  /** Runs passes until nothing is waiting or in flight (tests and tools); stops early when the chain is down. */
  async settle(maxPasses = 20): Promise<void> {
    for (let i = 0; i < maxPasses; i += 1) {
      const { confirmed, prepared } = await this.tick();
      if (confirmed === 0 && prepared === 0) return;
    }
  }

  private async prepareNext(): Promise<number> {
    const now = this.deps.clock.now();
    const em = this.deps.orm.em.fork();
    const waiting = await em.find(
      RecordSeal,
      { anchorBatchId: null, anchorStatus: { $ne: 'confirmed' }, $or: [{ anchorNextRetryAt: null }, { anchorNextRetryAt: { $lte: now } }] },
      { orderBy: { sealedAt: 'asc' }, limit: this.deps.settings.batchMax },
    );
    if (waiting.length === 0) return 0;
    let chain: AnchorChain;
    try {
      chain = await this.deps.chain();
      const records = await em.find(SignedRecord, { id: { $in: waiting.map((s) => s.recordId) } });
      const leaves = waiting.map((seal) => leafOf(seal, records.find((r) => r.id === seal.recordId)));
      const prepared = await chain.prepareBatch(leaves);
      // Stored first: from now on only these bytes are ever sent for these seals.
      await em.transactional(async (tx) => {
        const batch = tx.create(AnchorBatch, {
          root: prepared.root,
          leaves: prepared.leaves,
          network: chain.networkName(),
          chainId: prepared.chainId,
          registryAddress: prepared.registryAddress,
          rawTx: prepared.rawTx,
          txHash: prepared.txHash,
          nonce: prepared.nonce,
        });
        for (const [index, seal] of waiting.entries()) {
          const row = await tx.findOneOrFail(RecordSeal, { recordId: seal.recordId });
          row.anchorBatchId = batch.id;
          row.anchorProof = prepared.proofs[index] ?? [];
        }
        await tx.flush();
      });
      this.deps.instruments?.anchorBatch(waiting.length);
      this.deps.logger.info({ seals: waiting.length, txHash: prepared.txHash }, 'anchoring batch prepared');
    } catch (error) {
      await this.failed(waiting.map((s) => s.recordId), error);
      return 0;
    }
    const batch = await this.deps.orm.em.fork().findOneOrFail(AnchorBatch, { status: 'prepared' }, { orderBy: { createdAt: 'asc' } });
    await this.progress(batch);
    return waiting.length;
  }

  /** Broadcasts the stored transaction (again: harmless) and records it once confirmed. */
  private async progress(batch: AnchorBatch): Promise<number> {
    const seals = await this.deps.orm.em.fork().find(RecordSeal, { anchorBatchId: batch.id }, { fields: ['recordId'] });
    const recordIds = seals.map((s) => s.recordId);
    try {
      const chain = await this.deps.chain();
      let state = await chain.confirmation(batch.txHash as Hex);
      if (state.state === 'unknown') {
        await chain.broadcast(batch.rawTx as Hex);
        state = await chain.confirmation(batch.txHash as Hex);
      }
      if (state.state === 'failed') throw new AnchorChainError('rejected', 'the anchoring transaction reverted');
      if (state.state !== 'mined' || !state.confirmed) return 0;
      const at = this.deps.clock.now();
      await this.deps.orm.em.fork().transactional(async (em) => {
        const row = await em.findOneOrFail(AnchorBatch, { id: batch.id });
        row.status = 'confirmed';
        row.blockNumber = state.blockNumber.toString();
        row.blockTime = state.blockTime;
        row.confirmedAt = at;
        row.lastError = null;
        await em.nativeUpdate(RecordSeal, { anchorBatchId: batch.id }, { anchorStatus: 'confirmed', anchorNextRetryAt: null });
        await this.deps.events.write(em, recordIds.map((recordId) => recordArtifact({ recordId, artifact: 'blockchain', state: 'confirmed', at: at.toISOString() })));
      });
      this.deps.events.committed();
      this.deps.logger.info({ seals: recordIds.length, txHash: batch.txHash, blockNumber: state.blockNumber.toString() }, 'anchoring confirmed');
      return recordIds.length;
    } catch (error) {
      if (error instanceof AnchorChainError && (error.code === 'replaced' || error.code === 'rejected')) {
        // This transaction can never land: its seals go back to waiting and are prepared anew.
        await this.deps.orm.em.fork().transactional(async (em) => {
          await em.nativeUpdate(AnchorBatch, { id: batch.id }, { status: 'abandoned', lastError: error.message });
          await em.nativeUpdate(RecordSeal, { anchorBatchId: batch.id }, { anchorBatchId: null, anchorProof: null });
        });
        this.deps.logger.warn({ txHash: batch.txHash, reason: error.message }, 'anchoring transaction abandoned; its seals wait for the next batch');
      }
      await this.failed(recordIds, error);
      return 0;
    }
  }

  /** Seals whose anchoring failed now: `retrying`, with a doubling wait up to the cap. */
  private async failed(recordIds: string[], error: unknown): Promise<void> {
    this.deps.instruments?.chainError();
    if (!(error instanceof AnchorChainError)) this.deps.logger.error({ err: error }, 'anchoring failed unexpectedly');
    const reason = error instanceof Error ? error.message : String(error);
    const now = this.deps.clock.now();
    const base = this.deps.settings.retryBaseSeconds ?? 2;
    await this.deps.orm.em.fork().transactional(async (em) => {
      const seals = await em.find(RecordSeal, { recordId: { $in: recordIds } });
      const changed: string[] = [];
      for (const seal of seals) {
        const wait = Math.min(this.deps.settings.retryMaxSeconds, base * 2 ** seal.anchorRetryCount);
        if (seal.anchorStatus !== 'retrying') changed.push(seal.recordId);
        seal.anchorStatus = 'retrying';
        seal.anchorRetryCount += 1;
        seal.anchorNextRetryAt = new Date(now.getTime() + wait * 1000);
        if (wait >= this.deps.settings.retryMaxSeconds) this.deps.logger.warn({ recordId: seal.recordId, retries: seal.anchorRetryCount }, 'anchoring still failing at the longest retry interval');
      }
      await em.flush();
      await this.deps.events.write(em, changed.map((recordId) => recordArtifact({ recordId, artifact: 'blockchain', state: 'retrying', at: now.toISOString() })));
    });
    this.deps.events.committed();
    this.deps.logger.warn({ seals: recordIds.length, reason }, 'anchoring failed; will retry');
  }
}

/**
 * A seal as a leaf: its metadata hash, and the public payload its record asked for (the sealed text
 * with on_chain_full_text; the verified parties with on_chain_include_verified_parties).
 */
function leafOf(seal: RecordSeal, record: SignedRecord | undefined): AnchorLeaf {
  const hash = hashToBytes32(seal.metadataHash);
  if (!record || (!record.onChainFullText && !record.onChainIncludeVerifiedParties)) return { hash };
  const metadata = JSON.parse(seal.metadata) as SealedMetadata;
  const payload = {
    reference: record.reference,
    ...(record.onChainFullText ? { text: record.body } : {}),
    ...(record.onChainIncludeVerifiedParties
      ? { verified_parties: metadata.participants.filter((p) => p.verified_contact).map((p) => ({ role: p.role, display_name: p.display_name, ...p.verified_contact })) }
      : {}),
  };
  return { hash, payload: `0x${canonicalBytes(payload).toString('hex')}` };
}

