import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';

/**
 * One Idempotency-Key a caller sent with a mutating request, and the answer it got. Unique per
 * caller (scope) and key, so that every instance on the database sees the same claim; the key itself
 * is stored only as a hash, and the answer only encrypted with a key derived from it.
 */
@Entity({ tableName: 'idempotency_keys' })
@Unique({ name: 'idempotency_keys_scope_key_hash_unique', properties: ['scope', 'keyHash'] })
export class IdempotencyKey {
  [OptionalProps]?: 'response' | 'lockedUntil' | 'committedRecordId';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  /** Who sent it: `identity:<id>`, `api_key:<id>`, ... or `anonymous:<hash of the client address>`. */
  @Property({ type: 'text' })
  scope!: string;

  @Property({ type: 'text' })
  keyHash!: string;

  /** SHA-256 of the request it was first sent with (transport, target, body, caller). */
  @Property({ type: 'text' })
  fingerprint!: string;

  /** `committed`: the change committed (marked in its own transaction) and its answer is not stored yet. */
  @Property({ type: 'text' })
  status!: 'running' | 'committed' | 'completed';

  /** The record the committed change wrote (the first it touched; null: no record's rows), for a replay when the answer was lost. */
  @Property({ type: 'uuid', nullable: true })
  committedRecordId: string | null = null;

  /** The stored answer, AES-256-GCM under a key derived from the Idempotency-Key (base64). */
  @Property({ type: 'text', nullable: true })
  response: string | null = null;

  /** A running claim whose process died is taken over by a retry after this moment. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedUntil: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;

  @Index({ name: 'idempotency_keys_expires_at_index' })
  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;
}
