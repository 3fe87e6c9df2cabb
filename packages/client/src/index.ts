export { createRecordSigningClient, type RawClient, type RecordSigningClient, type RecordSigningClientOptions } from './client.js';
export { AuthenticationError, RecordSigningConnectionError, RecordSigningError, TokenExpiredError, type ErrorBody } from './errors.js';
export type { DataOf, FilePath, ItemOf, PagedPath, Success } from './methods.js';
export type { Fetch, RetryOptions } from './transport.js';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent, type WebhookEventType, type WebhookHeaders } from './webhooks.js';
export type { components, operations, paths } from './generated/openapi.js';
