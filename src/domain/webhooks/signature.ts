import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { openSealed, sealBytes } from '../shared/crypto.js';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key bytes. */
const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` value (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 over
 * `id.timestamp.body` for each secret, space-separated (two during a rotation).
 */
export function webhookSignature(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}

/**
 * Secrets are stored sealed under a key derived from the server secret and the endpoint's id (a
 * read of the table alone opens none; a sealed secret copied to another endpoint does not open).
 */
export class WebhookSecrets {
  /** The key of the event ids (eventId). */
  private readonly eventKey: Buffer;

  constructor(private readonly serverSecret: Buffer) {
    this.eventKey = Buffer.from(hkdfSync('sha256', serverSecret, 'webhook events', 'webhook event ids', 32));
  }

  seal(endpointId: string, secret: string): string {
    return sealBytes(Buffer.from(secret, 'utf8'), this.key(endpointId));
  }

  open(endpointId: string, sealed: string): string {
    return openSealed(sealed, this.key(endpointId)).toString('utf8');
  }

  /**
   * The `webhook-id` of an outbox event: opaque (an HMAC of its sequence number under a key derived
   * from SERVER_SECRET), so an endpoint's owner cannot read the service's volume from it, and the same
   * for every delivery of that event (a retried fan-out writes no second delivery).
   */
  eventId(outboxId: string): string {
    return `evt_${createHmac('sha256', this.eventKey).update(outboxId).digest('base64url').slice(0, 24)}`;
  }

  private key(endpointId: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.serverSecret, endpointId, 'webhook endpoint secret', 32));
  }
}
