import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Identity } from '../identity/entities.js';
import type { WebhookEventType } from './events.js';

/**
 * A URL an identity asked us to push its records' events to. The signing secret is stored sealed
 * under the server secret (it must be usable to sign, so it cannot be hashed); during a rotation the
 * previous one signs alongside the new one until `previousSecretExpiresAt`.
 */
@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpoint {
  [OptionalProps]?: 'description' | 'enabled' | 'disabledReason' | 'disabledAt' | 'failingSince' | 'previousSecret' | 'previousSecretExpiresAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  @Index()
  identity!: string;

  @Property({ type: 'text' })
  url!: string;

  @Property({ type: 'text[]' })
  events!: WebhookEventType[];

  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  /** Sealed (AES-256-GCM under a key derived from the server secret and the endpoint id). */
  @Property({ type: 'text', hidden: true })
  secret!: string;

  @Property({ type: 'text', nullable: true, hidden: true })
  previousSecret: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null = null;

  @Property({ type: 'boolean' })
  enabled: boolean = true;

  /** Why it was disabled: `gone` (the receiver answered 410), `failing` (every delivery failed for too long) or `owner`. */
  @Property({ type: 'text', nullable: true })
  disabledReason: 'gone' | 'failing' | 'owner' | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  disabledAt: Date | null = null;

  /** The first failure since the last success (null while deliveries succeed). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  failingSince: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * One event for one endpoint: the webhooks' own outbox. Written when the domain event is delivered
 * from the outbox (after the change committed); sent by whichever instance claims it first. `body`
 * is the exact JSON that is signed and sent on every attempt.
 */
@Entity({ tableName: 'webhook_deliveries' })
@Unique({ properties: ['endpoint', 'eventId'] })
// The sender's claim: pending deliveries in order.
@Index({ name: 'webhook_deliveries_pending', expression: `create index "webhook_deliveries_pending" on "webhook_deliveries" ("seq") where "status" = 'pending'` })
@Index({ properties: ['endpoint', 'seq'] })
export class WebhookDelivery {
  [OptionalProps]?: 'id' | 'seq' | 'status' | 'attempts' | 'nextAttemptAt' | 'lockedUntil' | 'lastStatusCode' | 'lastError' | 'lastAttemptAt' | 'deliveredAt' | 'failedAt' | 'createdAt' | 'recordId';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** The order deliveries were written in (per endpoint and record, the order they are sent in). */
  @Property({ type: 'bigint', autoincrement: true, unique: true })
  seq!: string;

  @ManyToOne(() => WebhookEndpoint, { mapToPk: true, deleteRule: 'cascade' })
  endpoint!: string;

  /** The `webhook-id` header and the payload's `id`: the same for every endpoint and every attempt. */
  @Property({ type: 'text' })
  eventId!: string;

  @Property({ type: 'text' })
  type!: WebhookEventType;

  @Property({ type: 'uuid', nullable: true })
  recordId: string | null = null;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'text' })
  status: DeliveryStatus = 'pending';

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null = new Date();

  /** A sender holds it until then (a sender that dies lets it go at this time). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedUntil: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  lastStatusCode: number | null = null;

  /** What went wrong at the last attempt, in words (never the URL, the secret or the body). */
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  deliveredAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  failedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}
