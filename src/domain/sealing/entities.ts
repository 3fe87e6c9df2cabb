import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { notifyRecordsChanged } from '../shared/record-changes.js';

export type ArtifactKind = 'sealed_pdf' | 'share_card';
/** What a degraded seal lacks: a time proof (B-B), validation data (B-T), the archive timestamp (B-LT). */
export type SealGap = 'timestamp' | 'validation_data' | 'archive_timestamp';
/** Why a sealed PDF has a new version: as sealed, an archive timestamp renewal, or a degraded seal completed. */
export type DocumentVersionCause = 'sealed' | 'archive_timestamp' | 'completed';

/**
 * A file a sealed record became (the signed PDF, the share card). Written once: a second writer of
 * the same kind finds it there and keeps it, so the stored hash never changes.
 */
@Entity({ tableName: 'sealed_artifacts', triggers: [notifyRecordsChanged] })
@Unique({ properties: ['recordId', 'kind'] })
@Index({ name: 'sealed_artifacts_archive_due_index', expression: `create index "sealed_artifacts_archive_due_index" on "sealed_artifacts" ("archive_expires_at") where "archive_expires_at" is not null` })
@Index({ name: 'sealed_artifacts_seal_completion_index', expression: `create index "sealed_artifacts_seal_completion_index" on "sealed_artifacts" ("seal_completion_next_at") where "seal_completion_next_at" is not null` })
export class SealedArtifact {
  [OptionalProps]?: 'id' | 'width' | 'height' | 'level' | 'archiveExpiresAt' | 'archiveNextAttemptAt' | 'sealMissing' | 'sealCompletionAttempts' | 'sealCompletionNextAt' | 'sealCertificateSha256' | 'sealCertificateSubject' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'uuid' })
  recordId!: string;

  @Property({ type: 'text' })
  kind!: ArtifactKind;

  /** Loaded only when the bytes are served. */
  @Property({ type: 'blob', lazy: true })
  content!: Buffer;

  /** `sha256:<hex>` of the exact stored bytes (the document hash of a sealed PDF). */
  @Property({ type: 'text' })
  sha256!: string;

  @Property({ type: 'integer' })
  byteSize!: number;

  @Property({ type: 'text' })
  contentType!: string;

  @Property({ type: 'text' })
  filename!: string;

  @Property({ type: 'integer', nullable: true })
  width: number | null = null;

  @Property({ type: 'integer', nullable: true })
  height: number | null = null;

  /** For a sealed PDF: the PAdES level reached (B-B, B-T, B-LT, B-LTA). */
  @Property({ type: 'text', nullable: true })
  level: string | null = null;

  /**
   * For a B-LTA sealed PDF: when the newest timestamp's certificate (or one of its chain) expires. The
   * archive renewal adds a document timestamp before then (ARCHIVE_RENEW_BEFORE_DAYS).
   */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  archiveExpiresAt: Date | null = null;

  /** After a renewal attempt that stored nothing: not due again before then (null: due as soon as its expiry is near). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  archiveNextAttemptAt: Date | null = null;

  /**
   * A degraded seal (its authorities were down): what it lacks (`timestamp`: no time proof, B-B;
   * `validation_data`: revocation or chain data, B-T; `archive_timestamp`: the document timestamp,
   * B-LT); null once complete or when nothing was asked beyond what it has.
   */
  @Property({ type: 'text[]', columnType: 'text[]', nullable: true })
  sealMissing: SealGap[] | null = null;

  /** Attempts made to complete a degraded seal. */
  @Property({ type: 'integer', default: 0 })
  sealCompletionAttempts = 0;

  /** When the completion job next tries a degraded seal (null: not degraded). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  sealCompletionNextAt: Date | null = null;

  /** For a sealed PDF: the seal certificate that signed it ('sha256:<hex>' of its DER, and its subject). */
  @Property({ type: 'text', nullable: true })
  sealCertificateSha256: string | null = null;

  @Property({ type: 'text', nullable: true })
  sealCertificateSubject: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/**
 * Every version of a record's sealed PDF, by hash: version 1 as sealed, then one per archive timestamp
 * renewal (each an incremental revision of the one before). Verification by document hash accepts any.
 */
@Entity({ tableName: 'sealed_document_versions' })
@Index({ name: 'sealed_document_versions_hash_index', properties: ['recordId', 'sha256'] })
export class SealedDocumentVersion {
  [OptionalProps]?: 'level';

  @PrimaryKey({ type: 'uuid' })
  recordId!: string;

  @PrimaryKey({ type: 'integer' })
  version!: number;

  @Property({ type: 'text' })
  sha256!: string;

  @Property({ type: 'integer' })
  byteSize!: number;

  @Property({ type: 'text', nullable: true })
  level: string | null = null;

  @Property({ type: 'text' })
  cause!: DocumentVersionCause;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;
}

/**
 * A single-use ticket for a sealed record's share card or sealed PDF (`kind`). Only the token's hash is
 * stored; the token itself is never kept or logged.
 */
@Entity({ tableName: 'card_tickets' })
@Index({ properties: ['expiresAt'] })
export class CardTicket {
  [OptionalProps]?: 'kind' | 'redeemedAt' | 'createdAt';

  @PrimaryKey({ type: 'text' })
  tokenHash!: string;

  @Property({ type: 'text', default: 'share_card' })
  kind: 'share_card' | 'signed_pdf' | 'record_export' = 'share_card';

  /** The record the ticket serves; for a `record_export` ticket, the export (domain/exports). */
  @Property({ type: 'uuid' })
  recordId!: string;

  @Property({ type: 'uuid' })
  identityId!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  redeemedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}
