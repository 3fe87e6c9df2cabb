/**
 * The bodies webhook deliveries carry, as JSON Schema: one envelope (`type`, `id`, `timestamp`,
 * `data`) per group of events whose `data` has the same fields. The groups come from the service's
 * event list (domain/webhooks/events.ts), the fields from what the fan-out writes (FAN_OUT in
 * domain/webhooks/fanout.ts: the record's facts, the participant for participant events, the
 * resolution for `counter.resolved`) and what a test delivery writes (webhook-service.ts `sendTest`).
 * `npm run client:generate` turns them into the client's `WebhookEvent` union; the client's journey test
 * holds real deliveries to them, so a field the fan-out adds or drops fails there.
 */
import { dateTime, enumOf, int, obj, ref, str, uuid, type JsonObject, type Schema } from './helpers.js';
import { PARTICIPANT_ROLES, RECORD_STATUSES, RECORD_TYPES } from './vocabulary.js';
import { COUNTER_RESOLUTIONS, PARTICIPANT_EVENT_TYPES, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../domain/webhooks/events.js';

const RESOLUTION_EVENT_TYPES: readonly WebhookEventType[] = ['counter.resolved'];
const TEST_EVENT_TYPES: readonly WebhookEventType[] = ['webhook.test'];
const RECORD_FACT_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter(
  (type) => !([...PARTICIPANT_EVENT_TYPES, ...RESOLUTION_EVENT_TYPES, ...TEST_EVENT_TYPES] as readonly string[]).includes(type),
);

/** Closed, so that a field the fan-out writes and this does not declare fails the journey test's check. */
const closed = { additionalProperties: false };

const recordFacts = {
  agr_reference: str({ description: 'The record\'s public reference.' }),
  record_id: uuid(),
  record_type: enumOf(RECORD_TYPES),
  status: enumOf(RECORD_STATUSES, { description: 'The record\'s status after the event.' }),
  current_version: int({ minimum: 1 }),
};

function envelope(types: readonly string[], data: string, description: string): Schema {
  return obj(
    {
      type: enumOf(types),
      id: str({ description: 'The event id, also the `webhook-id` header: the same on every attempt and for every endpoint.' }),
      timestamp: dateTime({ description: 'When the event happened.' }),
      data: ref(data),
    },
    'all',
    { ...closed, description },
  );
}

/** The schemas, by name; `WebhookEvent` is any delivery's body. */
export function webhookEventSchemas(): Record<string, Schema> {
  return {
    WebhookEvent: { oneOf: [ref('RecordEvent'), ref('ParticipantEvent'), ref('CounterResolvedEvent'), ref('WebhookTestEvent')] },
    RecordEvent: envelope(RECORD_FACT_EVENT_TYPES, 'RecordEventData', 'A record\'s change.'),
    ParticipantEvent: envelope(PARTICIPANT_EVENT_TYPES, 'ParticipantEventData', 'A participant signed or declined.'),
    CounterResolvedEvent: envelope(RESOLUTION_EVENT_TYPES, 'CounterResolvedEventData', 'A counter-proposal was resolved or withdrawn.'),
    WebhookTestEvent: envelope(TEST_EVENT_TYPES, 'WebhookTestEventData', 'Sent on request (`POST /webhooks/{webhook_id}/test`).'),
    RecordEventData: obj(recordFacts, 'all', closed),
    ParticipantEventData: obj({ ...recordFacts, participant_id: uuid(), participant_role: enumOf(PARTICIPANT_ROLES) }, 'all', closed),
    CounterResolvedEventData: obj({ ...recordFacts, resolution: enumOf(COUNTER_RESOLUTIONS) }, 'all', closed),
    WebhookTestEventData: obj({ webhook_id: uuid({ description: 'The endpoint the test was sent to.' }) }, 'all', closed),
  };
}

/**
 * The schemas in a document of their own, for openapi-typescript (which reads OpenAPI documents and
 * lints them) and for validators: the delivery as an OpenAPI 3.1 webhook, POSTed to the endpoint's URL.
 */
export function webhookEventsDocument(): JsonObject {
  return {
    openapi: '3.1.0',
    info: { title: 'Record Signing Service webhook events', version: '1', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/' }],
    paths: {},
    webhooks: {
      event: {
        post: {
          operationId: 'receiveWebhookEvent',
          summary: 'A delivery',
          description: 'Signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`); any 2xx acknowledges it.',
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookEvent') } } },
          responses: { '2XX': { description: 'Received.' } },
        },
      },
    },
    components: { schemas: webhookEventSchemas() },
  };
}
