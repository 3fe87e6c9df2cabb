import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
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
  read(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<{ artifact: StoredArtifact; bytes: Buffer } | null>;
}

export class PostgresArtifactStore implements ArtifactStore {
  async save(em: EntityManager, file: ArtifactFile): Promise<{ artifact: StoredArtifact; created: boolean }> {
    const bytes = Buffer.from(file.bytes);
    // `on conflict do nothing`: safe inside the caller's transaction, and the first writer wins.
    const inserted = await em
      .createQueryBuilder(SealedArtifact)
      .insert({
        id: randomUUID(),
        recordId: file.recordId,
        kind: file.kind,
        content: bytes,
        sha256: sha256Tagged(bytes),
        byteSize: bytes.length,
        contentType: file.contentType,
        filename: file.filename,
        width: file.width ?? null,
        height: file.height ?? null,
        level: file.level ?? null,
        createdAt: new Date(),
      })
      .onConflict(['recordId', 'kind'])
      .ignore()
      .execute<{ affectedRows: number }>('run');
    const stored = await this.describe(em, file.recordId, file.kind);
    if (!stored) throw new Error(`artifact ${file.kind} of ${file.recordId} was not stored`);
    return { artifact: stored, created: inserted.affectedRows > 0 };
  }

  describe(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<StoredArtifact | null> {
    return em.findOne(SealedArtifact, { recordId, kind }, { exclude: ['content'] });
  }

  async read(em: EntityManager, recordId: string, kind: ArtifactKind): Promise<{ artifact: StoredArtifact; bytes: Buffer } | null> {
    const row = await em.findOne(SealedArtifact, { recordId, kind }, { populate: ['content'] });
    return row ? { artifact: row, bytes: row.content } : null;
  }
}
