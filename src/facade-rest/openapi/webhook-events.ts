/**
 * The served contract's webhook bodies in a document of their own, for openapi-typescript (which
 * types a document's components, not its `webhooks` section): the body schema of each event type,
 * as the `webhooks` section has them, and `WebhookEvent`, their union, which a client narrows by
 * `type`. `npm run client:generate` turns it into the client's `WebhookEvent` type.
 */
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/events.js';
import { ref, type JsonObject, type Schema } from './helpers.js';
import { buildOpenApiDocument } from './index.js';
import { webhookEventSchemaName } from './webhook-deliveries.js';

export function webhookEventsDocument(): JsonObject {
  const document = buildOpenApiDocument();
  const names = WEBHOOK_EVENT_TYPES.map(webhookEventSchemaName);
  const schemas: Record<string, Schema> = Object.fromEntries(names.map((name) => [name, document.components.schemas[name]!]));
  schemas.WebhookEvent = { description: 'Any delivery, by its `type`.', oneOf: names.map((name) => ref(name)) };
  return {
    openapi: '3.1.0',
    info: { title: 'Record Signing Service webhook events', version: '1', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: '/' }],
    paths: {},
    // One entry for any delivery (the served document has one per event type, with their headers).
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
    components: { schemas },
  };
}
