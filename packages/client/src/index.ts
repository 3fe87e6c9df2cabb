export { createRecordSigningClient, RecordSigningError, type RecordSigningClient, type RecordSigningClientOptions } from './client.js';
export type { Fetch, RateLimitOptions } from './transport.js';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookHeaders } from './webhooks.js';
export type { components, operations, paths } from './generated/openapi.js';
