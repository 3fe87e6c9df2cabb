/** Webhook endpoints of the caller's identity, their deliveries, and their schemas (the events they carry: openapi/webhook-deliveries.ts). */
import { catalog } from '../../graph/catalog/index.js';
import type { CreateWebhookInput } from '../../graph/catalog/generated.js';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/events.js';
import { WEBHOOK_URL_MAX } from '../../domain/webhooks/target.js';
import { DELIVERY_PAGE_MAX, WEBHOOK_DESCRIPTION_MAX, WEBHOOKS_PER_IDENTITY } from '../../domain/webhooks/webhook-service.js';
import { MAX_LIST_OFFSET } from '../../domain/records/record-service.js';
import { arrayOf, bool, dateTime, enumOf, int, nullable, obj, ref, str, uuid, type JsonObject, type Schema } from '../openapi/helpers.js';
import { API, body, json, queryParam } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { param } from './params.js';

const { webhooks } = catalog;
const webhookId = (): JsonObject => ({ name: 'webhook_id', in: 'path', required: true, description: 'Webhook endpoint identifier.', schema: { type: 'string', format: 'uuid' } });
const deliveryId = (): JsonObject => ({ name: 'delivery_id', in: 'path', required: true, description: 'Delivery identifier.', schema: { type: 'string', format: 'uuid' } });
const nullableDateTime = (options: { description?: string } = {}): Schema => nullable(dateTime(options));
const endpoint = param('webhook_id');

export const WEBHOOKS_TAG: [string, string] = [
  'Webhooks',
  'Signed event deliveries (Standard Webhooks) to endpoints of the caller\'s identity, with bounded retries (bearer only).',
];

export function webhookRoutes(): RestRoute[] {
  const tags = [WEBHOOKS_TAG[0]];
  return [
    route('get', `${API}/webhooks`, {
      id: 'listWebhooks',
      summary: 'List webhook endpoints',
      tags,
      description: 'Endpoints of the caller\'s identity, newest first; never their secrets.',
      ok: json('WebhookListResponse', 200, 'The endpoints.'),
      errors: [401, 403, 429],
      runs: bind(webhooks.list, { input: () => ({}), body: (list) => ({ webhooks: list }) }),
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
      runs: bind(webhooks.create, {
        secret: true,
        input: ({ input }) => ({ input: input as CreateWebhookInput }),
        body: ({ webhook, secret }) => ({ ...webhook, secret }),
      }),
    }),
    route('get', `${API}/webhooks/{webhook_id}`, {
      id: 'getWebhook',
      summary: 'Get a webhook endpoint',
      tags,
      params: [webhookId()],
      ok: json('WebhookSchema', 200, 'The endpoint.'),
      errors: [401, 403, 404, 429],
      runs: bind(webhooks.get, { issueLocation: 'path', input: (r) => ({ id: endpoint(r) }) }),
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
      runs: bind(webhooks.update, { input: (r) => ({ id: endpoint(r), input: r.input }) }),
    }),
    route('delete', `${API}/webhooks/{webhook_id}`, {
      id: 'deleteWebhook',
      summary: 'Delete a webhook endpoint',
      tags,
      description: 'Deletes the endpoint and its deliveries: nothing more is sent to it, not even a retry.',
      params: [webhookId()],
      ok: { status: 204, description: 'Deleted.' },
      errors: [401, 403, 404, 429],
      runs: bind(webhooks.delete, { issueLocation: 'path', input: (r) => ({ id: endpoint(r) }) }),
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
      runs: bind(webhooks.rotateSecret, {
        secret: true,
        issueLocation: 'path',
        input: (r) => ({ id: endpoint(r) }),
        body: ({ webhook, secret }) => ({ ...webhook, secret }),
      }),
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
      runs: bind(webhooks.deliveries, {
        input: (r) => ({ id: endpoint(r), limit: (r.query.limit as number | undefined) ?? 20, offset: (r.query.offset as number | undefined) ?? 0 }),
      }),
    }),
    route('post', `${API}/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver`, {
      id: 'redeliverWebhookDelivery',
      summary: 'Redeliver',
      tags,
      description: 'Sends a delivered or failed delivery again, as a new series of attempts (same event id). 409 while it is pending or the endpoint is disabled.',
      params: [webhookId(), deliveryId()],
      ok: json('WebhookDeliverySchema', 202, 'Queued.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(webhooks.redeliver, { issueLocation: 'path', input: (r) => ({ id: endpoint(r), deliveryId: param('delivery_id')(r) }) }),
    }),
    route('post', `${API}/webhooks/{webhook_id}/test`, {
      id: 'testWebhook',
      summary: 'Send a test event',
      tags,
      description: 'Queues a `webhook.test` event for the endpoint, signed like every delivery. 409 when the endpoint is disabled.',
      params: [webhookId()],
      ok: json('WebhookDeliverySchema', 202, 'Queued.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(webhooks.test, { issueLocation: 'path', input: (r) => ({ id: endpoint(r) }) }),
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
