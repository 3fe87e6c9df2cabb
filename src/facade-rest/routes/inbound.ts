/** Calls from messaging platforms: authenticated by a shared secret, checked before the body is read. */
import { catalog } from '../../graph/catalog/index.js';
import { bool, freeObject, jsonBody, jsonContent, obj } from '../openapi/helpers.js';
import { API, headerParam, queryParam } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { webhookSecret } from './params.js';

const { inbound } = catalog;

export function inboundRoutes(): RestRoute[] {
  return [
    route('post', `${API}/inbound/messenger`, {
      id: 'receiveMessengerUpdate',
      summary: 'Receive a messenger update',
      tags: ['Inbound'],
      description:
        'Webhook for messaging-platform updates that complete signing challenges. Authenticated by a shared ' +
        'secret, in the `secret` query parameter or the `X-Telegram-Bot-Api-Secret-Token` header; a missing or wrong ' +
        'secret (or none configured on the service) answers 403. Updates are deduplicated on `update_id`.',
      params: [
        queryParam('secret', { type: 'string' }, 'Shared webhook secret.'),
        headerParam('X-Telegram-Bot-Api-Secret-Token', { type: 'string' }, 'Shared webhook secret.'),
      ],
      body: jsonBody(freeObject({ description: 'The platform update, as sent by the platform.' }), true),
      ok: {
        status: 200,
        description: 'Update accepted (also when it completes nothing).',
        content: jsonContent(obj({ ok: bool() })),
      },
      errors: [403],
      // The secret is checked before the body is read: an outsider's payload is never parsed.
      runs: bind(inbound.receiveMessengerUpdate, {
        guard: (request, { messenger }) => messenger.authorize(webhookSecret(request)),
        // The update goes on as sent, not case-converted.
        input: (r) => ({ secret: webhookSecret(r), update: r.body as Record<string, unknown> }),
        body: () => ({ ok: true }),
      }),
    }),
  ];
}
