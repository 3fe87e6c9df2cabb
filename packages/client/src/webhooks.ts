/**
 * Verifying a webhook delivery per the Standard Webhooks specification, with its reference
 * implementation (`standardwebhooks`): `webhook-signature` lists `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` values, several during a secret rotation, and one matching is enough; a
 * timestamp more than 5 minutes from now is refused, so a captured delivery cannot be replayed later.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './generated/webhook-events.js';

export { WebhookVerificationError };

/**
 * A delivery's body, told apart by `type` (`if (event.type === 'participant.signed') event.data.participant_role`):
 * generated from the service's event list and the fields its fan-out writes (`generated/webhook-events.ts`).
 */
export type WebhookEvent = components['schemas']['WebhookEvent'];

/** Every event an endpoint can subscribe to, and `webhook.test`. */
export type WebhookEventType = WebhookEvent['type'];

/** A fetch `Headers`, or a Node request's `headers` (any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function signatureHeaders(headers: WebhookHeaders): Record<string, string> {
  const entries: [string, string | string[] | undefined][] = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  const found: Record<string, string> = {};
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if ((NAMES as readonly string[]).includes(lower) && value !== undefined) found[lower] = [value].flat().join(' ');
  }
  return found;
}

/**
 * The delivery's event, when `headers` carry a valid signature of `rawBody` under `secret` (`whsec_…`, as
 * shown when the endpoint was made or its secret rotated); throws `WebhookVerificationError` otherwise.
 * `rawBody` must be the bytes as received: a body parsed and serialized again no longer matches.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, rawBody: string | Uint8Array): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const event = new Webhook(secret).verify(body, signatureHeaders(headers));
  if (typeof event !== 'object' || event === null) throw new WebhookVerificationError('The signed body is not an event');
  // Signed by the service, so the shape is the service's.
  return event as WebhookEvent;
}
