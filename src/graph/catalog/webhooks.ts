import { entry } from './entry.js';
import {
  CreateWebhookDocument,
  DeleteWebhookDocument,
  GetWebhookDocument,
  ListWebhookDeliveriesDocument,
  ListWebhooksDocument,
  RedeliverWebhookDeliveryDocument,
  RotateWebhookSecretDocument,
  TestWebhookDocument,
  UpdateWebhookDocument,
} from './generated.js';

/** Webhook endpoints of the caller's identity and their deliveries. */
export const webhooks = {
  list: entry('webhooks.list', ListWebhooksDocument, (data) => data.webhooks),
  get: entry('webhooks.get', GetWebhookDocument, (data) => data.webhook),
  create: entry('webhooks.create', CreateWebhookDocument, (data) => data.createWebhook),
  update: entry('webhooks.update', UpdateWebhookDocument, (data) => data.updateWebhook),
  delete: entry('webhooks.delete', DeleteWebhookDocument, (data) => data.deleteWebhook),
  rotateSecret: entry('webhooks.rotateSecret', RotateWebhookSecretDocument, (data) => data.rotateWebhookSecret),
  deliveries: entry('webhooks.deliveries', ListWebhookDeliveriesDocument, (data) => data.webhookDeliveries),
  redeliver: entry('webhooks.redeliver', RedeliverWebhookDeliveryDocument, (data) => data.redeliverWebhookDelivery),
  test: entry('webhooks.test', TestWebhookDocument, (data) => data.testWebhook),
};
