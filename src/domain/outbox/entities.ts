import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import type { DomainEvent } from '../shared/events.js';

/**
 * An event waiting for (or past) delivery. Written in the transaction of the change that caused it;
 * the dispatcher marks it delivered in the transaction that delivers it.
 */
@Entity({ tableName: 'outbox_events' })
@Index({ name: 'outbox_events_undelivered', expression: 'create index "outbox_events_undelivered" on "outbox_events" ("id") where "delivered_at" is null' })
@Index({ name: 'outbox_events_record_id', properties: ['recordId', 'id'] })
@Index({ name: 'outbox_events_record_undelivered', expression: 'create index "outbox_events_record_undelivered" on "outbox_events" ("record_id", "id") where "delivered_at" is null' })
export class OutboxEvent {
  [OptionalProps]?: 'id' | 'createdAt' | 'deliveredAt' | 'recordId' | 'attempts' | 'nextAttemptAt' | 'traceparent';

  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'text' })
  type!: DomainEvent['type'];

  @Property({ type: 'json' })
  payload!: DomainEvent['data'];

  @Property({ type: 'uuid', nullable: true })
  recordId: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  deliveredAt: Date | null = null;

  /** Failed deliveries so far; the next one waits 2^attempts seconds (at most five minutes). */
  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null = null;

  /** The W3C traceparent of the change that wrote the event (tracing on): its delivery continues that trace. */
  @Property({ type: 'text', nullable: true })
  traceparent: string | null = null;
}

/**
 * Units of work that wrote outbox rows the dispatcher must deliver: the journal wakes it when their
 * transaction commits (`EventJournal.afterCommit`). Rows written as entities (a new record's
 * `create`) join here; the journal's own statement does the same for what it leaves.
 */
export const leftForDispatcher = new WeakSet<object>();
