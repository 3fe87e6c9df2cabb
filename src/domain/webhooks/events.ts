/** What an endpoint can subscribe to, in the order of a record's life. */
export const WEBHOOK_EVENT_TYPES = [
  'record.created',
  'record.submitted',
  'participant.signed',
  'participant.declined',
  'counter.proposed',
  'counter.resolved',
  'record.sealed',
  'record.artifacts_ready',
  'record.anchored',
  'record.rescinded',
  'record.expired',
  'record.cancelled',
  'record.superseded',
  'webhook.test',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The events a record's change can cause (`webhook.test` is sent on request only). */
export const RECORD_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => type !== 'webhook.test');

/** How a `counter.resolved` counter-proposal ended (its delivery's `resolution`). */
export const COUNTER_RESOLUTIONS = ['accepted', 'partially_accepted', 'rejected', 'withdrawn'] as const;
