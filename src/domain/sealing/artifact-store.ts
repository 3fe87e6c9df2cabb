import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../shared/sql.js';
import { sha256Tagged } from '../shared/canonical-json.js';
import { SealedArtifact, type ArtifactKind, type DocumentVersionCause, type SealGap } from './entities.js';

export type ArtifactFile = {
  recordId: string;
  kind: ArtifactKind;
  bytes: Uint8Array;
  contentType: string;
  filename: string;
  width?: number;
  height?: number;
  level?: string;
  /** For a B-LTA sealed PDF: when its newest timestamp's certificate expires. */
  archiveExpiresAt?: Date | null;
  /** For a sealed PDF: the seal certificate that signed it. */
  sealCertificate?: { sha256: string; subject: string };
  /** A degraded seal: what it lacks, and when the completion job first tries it. */
  degraded?: { missing: SealGap[]; nextAttemptAt: Date };
};

/** A new version of a stored sealed PDF (an archive timestamp renewal, or a degraded seal's completion, appended revisions). */
export type RenewedDocument = { recordId: string; previousSha256: string; bytes: Uint8Array; level: string; archiveExpiresAt: Date | null; cause?: Exclude<DocumentVersionCause, 'sealed'> };

export type StoredArtifact = Omit<SealedArtifact, 'content' | 'archiveNextAttemptAt'>;

/**
 * Where artifacts live. One small port: PostgreSQL by default (the embedded setup needs nothing
 * else); an object store can take its place. Writes are first-wins: a second writer of the same
 * record and kind gets the stored artifact back, so its hash never changes.
 */
export interface ArtifactStore {
  /** In the caller's transaction. Returns the artifact as stored and whether this call stored it. */
  save(em: EntityManager, file: ArtifactFile): Promise<{ artifact: StoredArtifact; created: boolean }>;
  describe(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<StoredArtifact | null>;
  /** Every stored artifact of the record (without its bytes). */
  describeAll(em: EntityManager, recordId: string): Promise<StoredArtifact[]>;
  read(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<{ artifact: StoredArtifact; bytes: Buffer } | null>;
  /**
   * Replaces a sealed PDF by its renewed version, only if it is still `previousSha256` (another
   * instance may have renewed it meanwhile), and records the version. In the caller's transaction;
   * answers the new version's number, or null when the stored PDF had changed.
   */
  renew(em: EntityManager, renewed: RenewedDocument): Promise<{ version: number; sha256: string } | null>;
}

export class PostgresArtifactStore implements ArtifactStore {
  async save(em: EntityManager, file: ArtifactFile): Promise<{ artifact: StoredArtifact; created: boolean }> {
    // The bytes as they came (no copy), bound as a binary parameter: the ORM's insert formatted them into
    // its SQL text as hex, a string twice the file's size on the API thread's heap for each artifact.
    const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
    // `on conflict do nothing`: safe inside the caller's transaction, and the first writer wins.
    const artifact: StoredArtifact = {
      id: randomUUID(),
      recordId: file.recordId,
      kind: file.kind,
      sha256: sha256Tagged(bytes),
      byteSize: bytes.length,
      contentType: file.contentType,
      filename: file.filename,
      width: file.width ?? null,
      height: file.height ?? null,
      level: file.level ?? null,
      archiveExpiresAt: file.archiveExpiresAt ?? null,
      sealCertificateSha256: file.sealCertificate?.sha256 ?? null,
      sealCertificateSubject: file.sealCertificate?.subject ?? null,
      sealMissing: file.degraded?.missing ?? null,
      sealCompletionAttempts: 0,
      sealCompletionNextAt: file.degraded?.nextAttemptAt ?? null,
      createdAt: new Date(),
    };
    const inserted = await preparedQuery<{ id: string }>(
      em,
      `insert into sealed_artifacts (id, record_id, kind, content, sha256, byte_size, content_type, filename, width, height, level, archive_expires_at, seal_certificate_sha256, seal_certificate_subject,
                                     seal_missing, seal_completion_next_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?) on conflict (record_id, kind) do nothing returning id`,
      [
        artifact.id, artifact.recordId, artifact.kind, bytes, artifact.sha256, artifact.byteSize, artifact.contentType, artifact.filename, artifact.width, artifact.height, artifact.level,
        artifact.archiveExpiresAt, artifact.sealCertificateSha256, artifact.sealCertificateSubject, artifact.sealMissing, artifact.sealCompletionNextAt, artifact.createdAt,
      ],
    );
    if (inserted.length > 0) {
      if (file.kind === 'sealed_pdf') await addVersion(em, artifact.recordId, artifact.sha256, artifact.byteSize, artifact.level, 'sealed');
      return { artifact, created: true };
    }
    // Another writer was first: its artifact stands.
    const stored = await this.describe(em, file.recordId, file.kind);
    if (!stored) throw new Error(`artifact ${file.kind} of ${file.recordId} was not stored`);
    return { artifact: stored, created: false };
  }

  describe(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<StoredArtifact | null> {
    return em.findOne(SealedArtifact, { recordId, kind }, { exclude: ['content'] });
  }

  describeAll(em: EntityManager, recordId: string): Promise<StoredArtifact[]> {
    return em.find(SealedArtifact, { recordId }, { exclude: ['content'] });
  }

  async read(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<{ artifact: StoredArtifact; bytes: Buffer } | null> {
    const row = await em.findOne(SealedArtifact, { recordId, kind }, { populate: ['content'] });
    return row ? { artifact: row, bytes: row.content } : null;
  }

  async renew(em: EntityManager, renewed: RenewedDocument): Promise<{ version: number; sha256: string } | null> {
    const bytes = Buffer.from(renewed.bytes.buffer, renewed.bytes.byteOffset, renewed.bytes.byteLength);
    const sha256 = sha256Tagged(bytes);
    const updated = await preparedQuery<{ id: string }>(
      em,
      `update sealed_artifacts set content = ?, sha256 = ?, byte_size = ?, level = ?, archive_expires_at = ?, archive_next_attempt_at = null
        where record_id = ? and kind = 'sealed_pdf' and sha256 = ? returning id`,
      [bytes, sha256, bytes.length, renewed.level, renewed.archiveExpiresAt, renewed.recordId, renewed.previousSha256],
    );
    if (updated.length === 0) return null;
    return { version: await addVersion(em, renewed.recordId, sha256, bytes.length, renewed.level, renewed.cause ?? 'archive_timestamp'), sha256 };
  }
}

/**
 * Records a version of a record's sealed PDF (the next number), once per hash. Callers hold the
 * artifact row (its insert or update), so two versions of one record are never numbered at once. A
 * PDF made again after its artifact was removed is a new version; the earlier one's hash still
 * verifies (it was sealed by this service for this record).
 */
async function addVersion(em: EntityManager, recordId: string, sha256: string, byteSize: number, level: string | null, cause: DocumentVersionCause): Promise<number> {
  const [row] = await em.execute<{ version: number }[]>(
    `with known as (select version from sealed_document_versions where record_id = ? and sha256 = ?),
          added as (
            insert into sealed_document_versions (record_id, version, sha256, byte_size, level, cause, created_at)
            select ?, coalesce(max(version), 0) + 1, ?, ?, ?, ?, now() from sealed_document_versions where record_id = ?
            having not exists (select 1 from known)
            returning version)
     select version from added union all select version from known`,
    [recordId, sha256, recordId, sha256, byteSize, level, cause, recordId],
  );
  return row!.version;
}
