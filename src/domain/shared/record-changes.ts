import type { TriggerDef } from '@mikro-orm/core';

/** The one LISTEN/NOTIFY channel of the PubSub that spans instances (src/graph/pubsub.ts). */
export const PUBSUB_CHANNEL = 'rss_graph_events';

/** The topic the database itself publishes when a write to what a record view is made from commits. */
export const RECORDS_CHANGED = 'RECORDS_CHANGED';

/**
 * On every table a reader's view of a record is made from, and on the contact points that decide
 * who reads it: any committed write notifies every instance, whatever path made it (a service, a
 * job, another version of the service, an operator's SQL), and in-memory caches of record views
 * drop theirs. Once per statement; PostgreSQL folds a transaction's identical notifications into
 * one and sends none for a rollback.
 */
export const notifyRecordsChanged: TriggerDef = {
  name: 'notify_records_changed',
  timing: 'after',
  events: ['insert', 'update', 'delete'],
  forEach: 'statement',
  body: `perform pg_notify('${PUBSUB_CHANNEL}', '{"topic":"${RECORDS_CHANGED}","payload":null}'); return null;`,
};
