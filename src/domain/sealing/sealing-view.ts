import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { identiconFromDigest } from '../ceremonies/identicon.js';
import type { IdenticonView } from '../ceremonies/execution-view.js';
import type { SignedRecord } from '../records/entities.js';
import { AnchorBatch } from '../anchoring/entities.js';
import { SealedArtifact } from './entities.js';
import { RecordSeal, type AnchorStatus } from './seal.js';

export type BlockchainView = {
  status: AnchorStatus;
  network: string | null;
  txHash: string | null;
  blockNumber: number | null;
  explorerUrl: string | null;
  writtenAt: Date | null;
  onChainFullText: boolean;
  onChainIncludeVerifiedParties: boolean;
  metadataHash: string | null;
  retryCount: number;
  nextRetryAt: Date | null;
};

export type ShareCardView = { filename: string; contentType: string; width: number; height: number; hash: string; generatedAt: string; available: boolean };

/** The sealed PDF's metadata (never its bytes or a storage path). */
export type SealedDocumentView = { filename: string; contentType: string; hash: string; byteSize: number; level: string | null; generatedAt: Date };

/** What sealing added to a record: shown on reads once each part exists. */
export type SealingView = {
  metadataHash: string;
  identicon: IdenticonView;
  blockchain: BlockchainView;
  shareCard: ShareCardView | null;
  document: SealedDocumentView | null;
};

export type SealingSettings = { explorerTxUrl: string | undefined };

/** A sealed record's identicon never changes: drawn once per seal, then remembered (bounded). */
const drawnIdenticons = new LRUCache<string, IdenticonView>({ max: 2_000 });

function documentIdenticon(reference: string, metadataHash: string): IdenticonView {
  const key = `${reference} ${metadataHash}`;
  let identicon = drawnIdenticons.get(key);
  if (identicon === undefined) {
    const hex = metadataHash.replace(/^sha256:/, '');
    identicon = Object.freeze({ ...identiconFromDigest('document', hex, `Document identicon of ${reference}`), available: true });
    drawnIdenticons.set(key, identicon);
  }
  return identicon;
}

/** Sealing views of many records in three queries (never the artifacts' bytes). */
export async function sealingViews(em: EntityManager, records: readonly SignedRecord[], settings: SealingSettings): Promise<Map<string, SealingView>> {
  const sealed = records.filter((r) => r.sealedAt !== null);
  const out = new Map<string, SealingView>();
  if (sealed.length === 0) return out;
  const ids = sealed.map((r) => r.id);
  const seals = await em.find(RecordSeal, { recordId: { $in: ids } }, { fields: ['recordId', 'metadataHash', 'sealedAt', 'anchorStatus', 'anchorRetryCount', 'anchorNextRetryAt', 'anchorBatchId'] });
  const artifacts = await em.find(SealedArtifact, { recordId: { $in: ids } }, { exclude: ['content'] });
  const batchIds = seals.map((s) => s.anchorBatchId).filter((id): id is string => id !== null);
  const batches = batchIds.length ? await em.find(AnchorBatch, { id: { $in: batchIds } }, { exclude: ['rawTx'] }) : [];
  const batchById = new Map(batches.map((b) => [b.id, b]));
  for (const record of sealed) {
    const seal = seals.find((s) => s.recordId === record.id);
    if (!seal) continue;
    const batch = seal.anchorBatchId ? batchById.get(seal.anchorBatchId) : undefined;
    out.set(record.id, toSealingView(record, seal, batch, artifacts.filter((a) => a.recordId === record.id), settings));
  }
  return out;
}

/** One record's view from a seal the caller has already read (its artifacts and anchor batch are read here). */
export async function sealingViewOf(
  em: EntityManager,
  record: SignedRecord,
  seal: RecordSeal,
  settings: SealingSettings,
): Promise<SealingView> {
  const artifacts = await em.find(SealedArtifact, { recordId: record.id }, { exclude: ['content'] });
  const batch = seal.anchorBatchId ? await em.findOne(AnchorBatch, { id: seal.anchorBatchId }, { exclude: ['rawTx'] }) : null;
  return toSealingView(record, seal, batch ?? undefined, artifacts, settings);
}

type SealData = Pick<RecordSeal, 'metadataHash' | 'anchorStatus' | 'anchorRetryCount' | 'anchorNextRetryAt'>;
type BatchData = Pick<AnchorBatch, 'status' | 'network' | 'txHash' | 'blockTime'> & { blockNumber: string | number | bigint | null };
type ArtifactData = Pick<SealedArtifact, 'kind' | 'filename' | 'contentType' | 'width' | 'height' | 'sha256' | 'byteSize' | 'level' | 'createdAt'>;

/** One sealed record's view from its seal, anchor batch and artifacts (however they were read). */
export function toSealingView(
  record: Pick<SignedRecord, 'reference' | 'onChainFullText' | 'onChainIncludeVerifiedParties'>,
  seal: SealData,
  batch: BatchData | undefined,
  artifacts: readonly ArtifactData[],
  settings: SealingSettings,
): SealingView {
  const confirmed = seal.anchorStatus === 'confirmed' && batch?.status === 'confirmed';
  const card = artifacts.find((a) => a.kind === 'share_card');
  const pdf = artifacts.find((a) => a.kind === 'sealed_pdf');
  return {
    metadataHash: seal.metadataHash,
    identicon: documentIdenticon(record.reference, seal.metadataHash),
    blockchain: {
      status: seal.anchorStatus,
      network: batch?.network ?? null,
      txHash: confirmed ? batch.txHash : null,
      blockNumber: confirmed && batch.blockNumber !== null ? Number(batch.blockNumber) : null,
      explorerUrl: confirmed && settings.explorerTxUrl ? settings.explorerTxUrl.replace('{tx}', batch.txHash) : null,
      writtenAt: confirmed ? batch.blockTime : null,
      onChainFullText: record.onChainFullText,
      onChainIncludeVerifiedParties: record.onChainIncludeVerifiedParties,
      metadataHash: seal.metadataHash,
      retryCount: seal.anchorRetryCount,
      nextRetryAt: seal.anchorNextRetryAt,
    },
    shareCard: card
      ? { filename: card.filename, contentType: card.contentType, width: card.width ?? 0, height: card.height ?? 0, hash: card.sha256, generatedAt: card.createdAt.toISOString(), available: true }
      : null,
    document: pdf ? { filename: pdf.filename, contentType: pdf.contentType, hash: pdf.sha256, byteSize: pdf.byteSize, level: pdf.level, generatedAt: pdf.createdAt } : null,
  };
}
