import { catalog } from '../../graph/catalog/index.js';
import type { CreateWebhookInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation } from '../operation.js';
import { param } from './params.js';

const { webhooks } = catalog;
const webhookId = param('webhook_id');

/** Webhook endpoints and their deliveries. */
export const webhookRoutes: Record<string, RestOperation> = {
  listWebhooks: bind(webhooks.list, { input: () => ({}), body: (list) => ({ webhooks: list }) }),
  createWebhook: bind(webhooks.create, {
    status: 201,
    secret: true,
    input: ({ input }) => ({ input: input as CreateWebhookInput }),
    body: ({ webhook, secret }) => ({ ...webhook, secret }),
  }),
  getWebhook: bind(webhooks.get, { issueLocation: 'path', input: (r) => ({ id: webhookId(r) }) }),
  updateWebhook: bind(webhooks.update, { input: (r) => ({ id: webhookId(r), input: r.input }) }),
  deleteWebhook: bind(webhooks.delete, { status: 204, issueLocation: 'path', input: (r) => ({ id: webhookId(r) }) }),
  rotateWebhookSecret: bind(webhooks.rotateSecret, {
    secret: true,
    issueLocation: 'path',
    input: (r) => ({ id: webhookId(r) }),
    body: ({ webhook, secret }) => ({ ...webhook, secret }),
  }),
  listWebhookDeliveries: bind(webhooks.deliveries, {
    input: (r) => ({ id: webhookId(r), limit: (r.query.limit as number | undefined) ?? 20, offset: (r.query.offset as number | undefined) ?? 0 }),
  }),
  redeliverWebhookDelivery: bind(webhooks.redeliver, { status: 202, issueLocation: 'path', input: (r) => ({ id: webhookId(r), deliveryId: param('delivery_id')(r) }) }),
  testWebhook: bind(webhooks.test, { status: 202, issueLocation: 'path', input: (r) => ({ id: webhookId(r) }) }),
};
