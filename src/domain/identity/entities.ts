import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { randomUUID } from 'node:crypto';
import { OptionalProps } from '@mikro-orm/core';
import type { Scope } from './principal.js';
import { CONNECTOR_CONSENT_PURPOSE, OTP_PURPOSES } from '../vocabulary.js';
import { notifyRecordsChanged } from '../shared/record-changes.js';

export { OTP_PURPOSES };

/** A person (or organisation) as the service knows them: the root of an identity graph. */
@Entity({ tableName: 'identities' })
export class Identity {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

export type ContactPointType = 'email' | 'messenger' | (string & {});

/** A verified way to reach an identity (email, messenger handle, linked social handle). */
@Entity({ tableName: 'contact_points', triggers: [notifyRecordsChanged] })
@Unique({ properties: ['type', 'value'] })
export class ContactPoint {
  [OptionalProps]?: 'firstVerifiedAt' | 'lastVerifiedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  @Index()
  identity!: string;

  @Property({ type: 'text' })
  type!: ContactPointType;

  /** Normalized value (emails lowercased). */
  @Property({ type: 'text' })
  value!: string;

  @Property({ type: 'text' })
  valueHash!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  firstVerifiedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastVerifiedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/** Every purpose a code can have: the requestable ones and the connector consent page's own. */
export type OtpPurpose = (typeof OTP_PURPOSES)[number] | typeof CONNECTOR_CONSENT_PURPOSE;

/** One issued one-time code. Only a hash of the code is stored. */
@Entity({ tableName: 'verification_events' })
@Index({ properties: ['channel', 'destination', 'createdAt'] })
export class VerificationEvent {
  [OptionalProps]?: 'channel' | 'attempts' | 'consumedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text' })
  purpose!: OtpPurpose;

  @Property({ type: 'text' })
  channel = 'email' as const;

  /** Normalized destination (the email address). */
  @Property({ type: 'text' })
  destination!: string;

  @Property({ type: 'text', hidden: true })
  codeHash!: string;

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'integer' })
  maxAttempts!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  consumedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/** A short-lived bearer session issued by an `authenticate` OTP. Only its hash is stored. */
@Entity({ tableName: 'access_tokens' })
export class AccessToken {
  [OptionalProps]?: 'revokedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', unique: true, hidden: true })
  tokenHash!: string;

  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  identity!: string;

  @ManyToOne(() => ContactPoint, { mapToPk: true, deleteRule: 'cascade' })
  contactPoint!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/** A long-lived, scoped machine credential. The full key is shown once; only its hash is kept. */
@Entity({ tableName: 'api_keys' })
export class ApiKey {
  [OptionalProps]?: 'name' | 'lastUsedAt' | 'expiresAt' | 'revokedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  @Index()
  identity!: string;

  @Property({ type: 'text' })
  keyPrefix!: string;

  @Property({ type: 'text', unique: true, hidden: true })
  keyHash!: string;

  @Property({ type: 'text', nullable: true })
  name: string | null = null;

  @Property({ type: 'text[]' })
  scopes!: Scope[];

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/** Counts requests per key and fixed window; shared by every instance through the database. */
@Entity({ tableName: 'rate_limit_windows' })
export class RateLimitWindow {
  [OptionalProps]?: 'hits' | 'granted' | 'lastHitAt';

  @PrimaryKey({ type: 'text' })
  key!: string;

  @PrimaryKey({ type: 'datetime', columnType: 'timestamptz' })
  windowStart!: Date;

  @Property({ type: 'integer' })
  hits: number = 0;

  /** How many hits the last statement on this window counted (RateLimiter counts several in one). */
  @Property({ type: 'integer', default: 0 })
  granted: number = 0;

  /** When the window last counted a hit: once a whole window has passed since, it weighs nothing. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastHitAt: Date | null = null;
}
