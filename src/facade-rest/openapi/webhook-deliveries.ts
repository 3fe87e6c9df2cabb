/**
 * What the service sends to webhook endpoints: one body schema per event type (components) and the
 * contract's `webhooks` section (OpenAPI 3.1), with the Standard Webhooks headers.
 */
import { COUNTER_RESOLUTIONS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../domain/webhooks/events.js';
import { PARTICIPANT_ROLES, RECORD_STATUSES, RECORD_TYPES } from '../../domain/vocabulary.js';
import { dateTime, enumOf, int, jsonBody, obj, ref, str, uuid, type JsonObject, type Schema } from './helpers.js';

/** What each event type says, for the contract's `webhooks` section (docs/webhooks.md's table in the same words). */
const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'record.created': 'A record (or an amendment or cancellation draft) was created.',
  'record.submitted': 'The initiator submitted it for signatures.',
  'participant.signed': 'A participant finalized their signature for a version.',
  'participant.declined': "A participant declined (the record's `status` says whether it ended `declined`).",
  'counter.proposed': 'A counter-proposal was made.',
  'counter.resolved': 'A counter-proposal was accepted, partially accepted, rejected or withdrawn (`resolution`).',
  'record.sealed': 'Every required signature is in: the record is sealed.',
  'record.artifacts_ready': 'Its sealed PDF and share card exist (a notarization has no PDF: its share card exists).',
  'record.anchored': 'Its chain record is confirmed.',
  'record.rescinded': 'The initiator rescinded it.',
  'record.expired': 'It lapsed before every signature was in.',
  'record.cancelled': 'A draft was cancelled.',
  'record.superseded': 'A sealed record was replaced by its amendment or mutual cancellation.',
  'webhook.test': 'Sent on request (`POST /api/v1/webhooks/{id}/test`).',
};

/** The schema name of an event type's delivery: `record.artifacts_ready` is `RecordArtifactsReadyEvent`. */
export function webhookEventSchemaName(type: WebhookEventType): string {
  return `${type.split(/[._]/).map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}Event`;
}

/**
 * Every delivery's body, one schema per event type (`type` fixed; the `webhooks` section's bodies,
 * whose union a client discriminates by `type`): what `src/domain/webhooks/fanout.ts` writes, field
 * for field.
 */
export function webhookEventSchemas(): Record<string, Schema> {
  const envelope = (type: WebhookEventType, data: Schema): Schema =>
    obj(
      {
        type: { type: 'string', const: type },
        id: str({ pattern: '^evt_[A-Za-z0-9_-]+$', maxLength: 64, description: 'The event id, also the `webhook-id` header: the same on every attempt; deduplicate on it.' }),
        timestamp: dateTime({ description: 'When it happened.' }),
        data,
      },
      'all',
      { additionalProperties: false, description: EVENT_DESCRIPTIONS[type] },
    );
  const recordFacts = {
    agr_reference: str({ pattern: '^AGR-[A-Z0-9]{4}-[A-Z0-9]{4}$' }),
    record_id: uuid(),
    record_type: enumOf(RECORD_TYPES),
    status: enumOf(RECORD_STATUSES, { description: "The record's status after the event." }),
    current_version: int({ minimum: 1 }),
  };
  const recordData = (extra: Record<string, Schema> = {}, required: string[] = []) =>
    obj({ ...recordFacts, ...extra }, [...Object.keys(recordFacts), ...required], { additionalProperties: false });
  const participant = { participant_id: uuid(), participant_role: enumOf(PARTICIPANT_ROLES) };
  const dataOf = (type: WebhookEventType): Schema => {
    if (type === 'webhook.test') return obj({ webhook_id: uuid() }, 'all', { additionalProperties: false });
    if (type === 'participant.signed' || type === 'participant.declined') return recordData(participant, Object.keys(participant));
    if (type === 'counter.resolved') return recordData({ resolution: enumOf(COUNTER_RESOLUTIONS) }, ['resolution']);
    return recordData();
  };
  const schemas: Record<string, Schema> = {};
  for (const type of WEBHOOK_EVENT_TYPES) schemas[webhookEventSchemaName(type)] = envelope(type, dataOf(type));
  return schemas;
}

/**
 * The contract's `webhooks` section (OpenAPI 3.1): what the service POSTs to an endpoint, per event
 * type, with the Standard Webhooks headers. Any 2xx answer is a delivery.
 */
export function webhookEvents(): JsonObject {
  const header = (name: string, description: string, schema: JsonObject): JsonObject => ({ name, in: 'header', required: true, description, schema: { type: 'string', ...schema } });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary: type,
          description: `${EVENT_DESCRIPTIONS[type]} Verify the signature over \`webhook-id\`, \`webhook-timestamp\` and the raw body before trusting it (Standard Webhooks).`,
          tags: ['Webhooks'],
          // No credential: the receiver checks the signature headers (Standard Webhooks) with its endpoint's secret.
          security: [],
          parameters: [
            header('webhook-id', 'The event id (`evt_…`), the same on every attempt.', { pattern: '^evt_[A-Za-z0-9_-]+$', maxLength: 64 }),
            header('webhook-timestamp', 'Seconds since the epoch when this attempt was signed.', { pattern: '^[0-9]+$', maxLength: 12 }),
            header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256>` signatures (two during a secret rotation).', {
              pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$',
              maxLength: 256,
            }),
          ],
          requestBody: jsonBody(ref(webhookEventSchemaName(type)), true),
          responses: { '2XX': { description: 'Received: any 2xx answer is a delivery. 410 disables the endpoint; anything else is retried on the schedule.' } },
        },
      },
    ]),
  );
}
