import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../database.js';
import { sha256Tagged } from '../shared/canonical-json.js';
import { SealedArtifact, type ArtifactKind } from './entities.js';

export type ArtifactFile = {
  recordId: string;
  kind: ArtifactKind;
  bytes: Uint8Array;
  contentType: string;
  filename: string;
  width?: number;
  height?: number;
  level?: string;
};

export type StoredArtifact = Omit<SealedArtifact, 'content'>;

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
      createdAt: new Date(),
    };
    const inserted = await preparedQuery<{ id: string }>(
      em,
      `insert into sealed_artifacts (id, record_id, kind, content, sha256, byte_size, content_type, filename, width, height, level, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (record_id, kind) do nothing returning id`,
      [artifact.id, artifact.recordId, artifact.kind, bytes, artifact.sha256, artifact.byteSize, artifact.contentType, artifact.filename, artifact.width, artifact.height, artifact.level, artifact.createdAt],
    );
    if (inserted.length > 0) return { artifact, created: true };
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
}
