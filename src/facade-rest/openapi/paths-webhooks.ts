/** The webhook routes of the served contract and their schemas. */
import { arrayOf, bool, dateTime, enumOf, int, jsonBody, nullable, obj, ref, str, uuid, type Schema } from './helpers.js';
import { json, queryParam, route, type Route } from './operation.js';
import { API } from './paths-records.js';
import { COUNTER_RESOLUTIONS, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../domain/webhooks/events.js';
import { PARTICIPANT_ROLES, RECORD_STATUSES, RECORD_TYPES } from '../../domain/vocabulary.js';
import { WEBHOOK_URL_MAX } from '../../domain/webhooks/target.js';
import { DELIVERY_PAGE_MAX, WEBHOOK_DESCRIPTION_MAX, WEBHOOKS_PER_IDENTITY } from '../../domain/webhooks/webhook-service.js';
import { MAX_LIST_OFFSET } from '../../domain/records/record-service.js';
import type { JsonObject } from './helpers.js';

const webhookId = (): JsonObject => ({ name: 'webhook_id', in: 'path', required: true, description: 'Webhook endpoint identifier.', schema: { type: 'string', format: 'uuid' } });
const deliveryId = (): JsonObject => ({ name: 'delivery_id', in: 'path', required: true, description: 'Delivery identifier.', schema: { type: 'string', format: 'uuid' } });
const body = (schema: string) => jsonBody(ref(schema), true);
const nullableDateTime = (options: { description?: string } = {}): Schema => nullable(dateTime(options));

export const WEBHOOKS_TAG: [string, string] = [
  'Webhooks',
  'Signed event deliveries (Standard Webhooks) to endpoints of the caller\'s identity, with bounded retries (bearer only).',
];

export function webhookRoutes(): Route[] {
  const tags = [WEBHOOKS_TAG[0]];
  return [
    route('get', `${API}/webhooks`, {
      id: 'listWebhooks',
      summary: 'List webhook endpoints',
      tags,
      description: 'Endpoints of the caller\'s identity, newest first; never their secrets.',
      ok: json('WebhookListResponse', 200, 'The endpoints.'),
      errors: [401, 403, 429],
    }),
    route('post', `${API}/webhooks`, {
      id: 'createWebhook',
      summary: 'Register a webhook endpoint',
      tags,
      description:
        'Events of the records the caller\'s identity may read are pushed to `url`, signed per the Standard Webhooks specification ' +
        '(`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing `secret` is returned once, in this response only. ' +
        'The URL must be https and lead to public addresses, except hosts the operator allows (`WEBHOOK_ALLOWED_HOSTS`). ' +
        `At most ${WEBHOOKS_PER_IDENTITY} endpoints per identity (409 past that).`,
      body: body('CreateWebhookRequest'),
      ok: json('WebhookCreatedResponse', 201, 'The endpoint and its secret.'),
      errors: [401, 403, 409, 429],
    }),
    route('get', `${API}/webhooks/{webhook_id}`, {
      id: 'getWebhook',
      summary: 'Get a webhook endpoint',
      tags,
      params: [webhookId()],
      ok: json('WebhookSchema', 200, 'The endpoint.'),
      errors: [401, 403, 404, 429],
    }),
    route('patch', `${API}/webhooks/{webhook_id}`, {
      id: 'updateWebhook',
      summary: 'Change a webhook endpoint',
      tags,
      description:
        'Changes the URL, the events or the description; `enabled: false` pauses it (its pending deliveries fail), ' +
        '`enabled: true` enables a disabled endpoint again (redeliver what it missed).',
      params: [webhookId()],
      body: body('UpdateWebhookRequest'),
      ok: json('WebhookSchema', 200, 'The endpoint.'),
      errors: [401, 403, 404, 429],
    }),
    route('delete', `${API}/webhooks/{webhook_id}`, {
      id: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      tags,
      description: 'Deletes the endpoint and its deliveries: nothing more is sent to it, not even a retry.',
      params: [webhookId()],
      ok: { status: 204, description: 'Deleted.' },
      errors: [401, 403, 404, 429],
    }),
    route('post', `${API}/webhooks/{webhook_id}/rotate-secret`, {
      id: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      tags,
      description:
        'A new secret, returned once. For 24 hours deliveries carry two signatures (the new secret\'s and the previous one\'s), ' +
        'so that receivers can switch without losing an event.',
      params: [webhookId()],
      ok: json('WebhookCreatedResponse', 200, 'The endpoint and its new secret.'),
      errors: [401, 403, 404, 429],
    }),
    route('get', `${API}/webhooks/{webhook_id}/deliveries`, {
      id: 'listWebhookDeliveries',
      summary: 'List deliveries',
      tags,
      description: 'The endpoint\'s deliveries, newest first, kept 30 days after they settle.',
      params: [
        webhookId(),
        queryParam('limit', int({ minimum: 1, maximum: DELIVERY_PAGE_MAX, default: 20 }), `Page size, 1 to ${DELIVERY_PAGE_MAX}.`),
        queryParam('offset', int({ minimum: 0, maximum: MAX_LIST_OFFSET, default: 0 }), `Deliveries to skip, 0 to ${MAX_LIST_OFFSET}.`),
      ],
      ok: json('WebhookDeliveryListResponse', 200, 'A page of deliveries.'),
      errors: [401, 403, 404, 429],
    }),
    route('post', `${API}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver`, {
      id: 'redeliverWebhookDelivery',
      summary: 'Redeliver',
      tags,
      description: 'Sends a delivered or failed delivery again, as a new series of attempts (same event id). 409 while it is pending or the endpoint is disabled.',
      params: [webhookId(), deliveryId()],
      ok: json('WebhookDeliverySchema', 202, 'Queued.'),
      errors: [401, 403, 404, 409, 429],
    }),
    route('post', `${API}/webhooks/{webhook_id}/test`, {
      id: 'testWebhook',
      summary: 'Send a test event',
      tags,
      description: 'Queues a `webhook.test` event for the endpoint, signed like every delivery. 409 when the endpoint is disabled.',
      params: [webhookId()],
      ok: json('WebhookDeliverySchema', 202, 'Queued.'),
      errors: [401, 403, 404, 409, 429],
    }),
  ];
}

export function webhookSchemas(): Record<string, Schema> {
  const events = arrayOf(enumOf(WEBHOOK_EVENT_TYPES), { minItems: 1, uniqueItems: true, maxItems: WEBHOOK_EVENT_TYPES.length });
  // An example production accepts (https, a host that resolves to public addresses): a generated sample would be http://example.com.
  const url = str({ format: 'uri', maxLength: WEBHOOK_URL_MAX, description: 'Where events are POSTed (https).', examples: ['https://example.com/webhooks/record-signing'] });
  const description = nullable(str({ maxLength: WEBHOOK_DESCRIPTION_MAX }));
  const webhook = {
    id: uuid(),
    url,
    events,
    description,
    enabled: bool({ description: 'False once disabled: nothing is sent to it.' }),
    disabled_reason: nullable(enumOf(['owner', 'gone', 'failing'], { description: 'Paused by its owner, answered 410 Gone, or failed every delivery for too long.' })),
    disabled_at: nullableDateTime(),
    previous_secret_expires_at: nullableDateTime({ description: 'After a rotation, the previous secret signs too until then.' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  };
  return {
    ...webhookEventSchemas(),
    WebhookSchema: obj(webhook, 'all', { description: 'A webhook endpoint.' }),
    WebhookCreatedResponse: obj(
      { ...webhook, secret: str({ pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The signing secret: `whsec_` and base64. Returned once.' }) },
      'all',
    ),
    WebhookListResponse: obj({ webhooks: arrayOf(ref('WebhookSchema'), { maxItems: WEBHOOKS_PER_IDENTITY }) }, 'all'),
    WebhookDeliverySchema: obj(
      {
        id: uuid(),
        event_id: str({ description: 'The `webhook-id` header and the payload\'s `id`: the same on every attempt.' }),
        type: enumOf(WEBHOOK_EVENT_TYPES),
        record_id: nullable(uuid()),
        status: enumOf(['pending', 'delivered', 'failed']),
        attempts: int({ minimum: 0 }),
        last_status_code: nullable(int()),
        last_error: nullable(str({ description: 'What went wrong at the last attempt, in words.' })),
        last_attempt_at: nullableDateTime(),
        next_attempt_at: nullableDateTime({ description: 'While pending: when it is tried next.' }),
        delivered_at: nullableDateTime(),
        failed_at: nullableDateTime(),
        created_at: dateTime(),
      },
      'all',
    ),
    WebhookDeliveryListResponse: obj(
      { deliveries: arrayOf(ref('WebhookDeliverySchema'), { maxItems: DELIVERY_PAGE_MAX }), total: int({ minimum: 0 }) },
      'all',
    ),
    CreateWebhookRequest: obj({ url, events, description }, ['url', 'events']),
    UpdateWebhookRequest: obj({ url, events, description, enabled: bool() }, []),
  };
}

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
function webhookEventSchemas(): Record<string, Schema> {
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
