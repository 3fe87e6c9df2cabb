import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { notifyRecordsChanged } from '../shared/record-changes.js';

export type AnchorBatchStatus = 'prepared' | 'confirmed' | 'abandoned';

/**
 * One anchoring transaction: the Merkle root of the seals it carries (or the single seal's hash).
 * The signed transaction is stored BEFORE it is broadcast, so a retry after any failure (a crash
 * right after broadcast included) sends the very same bytes: never a second transaction.
 */
@Entity({ tableName: 'anchor_batches', triggers: [notifyRecordsChanged] })
@Index({ properties: ['status', 'nextAttemptAt'] })
export class AnchorBatch {
  [OptionalProps]?: 'id' | 'status' | 'attempts' | 'nextAttemptAt' | 'blockNumber' | 'blockTime' | 'lastError' | 'createdAt' | 'confirmedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text' })
  root!: string;

  /** The metadata hashes it anchors, in leaf order. */
  @Property({ type: 'json' })
  leaves!: string[];

  @Property({ type: 'text' })
  network!: string;

  @Property({ type: 'integer' })
  chainId!: number;

  @Property({ type: 'text' })
  registryAddress!: string;

  /** The signed raw transaction (public once broadcast; holds no key). */
  @Property({ type: 'text' })
  rawTx!: string;

  @Property({ type: 'text', unique: true })
  txHash!: string;

  @Property({ type: 'integer' })
  nonce!: number;

  @Property({ type: 'text' })
  status: AnchorBatchStatus = 'prepared';

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null = null;

  @Property({ type: 'bigint', nullable: true })
  blockNumber: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  blockTime: Date | null = null;

  /** The last failure, in words (never a key or a secret). */
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  confirmedAt: Date | null = null;
}
