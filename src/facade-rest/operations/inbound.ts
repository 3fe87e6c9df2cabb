import {
  ReceiveMessengerUpdateDocument,
} from './generated.js';
import type { RestOperation } from '../operation.js';
import { webhookSecret } from './shared.js';

/** Inbound platform calls. */
export const inboundOperations: Record<string, RestOperation> = {
  receiveMessengerUpdate: {
    access: 'public',
    // The update's keys belong to the platform: it goes on as sent, not case-converted.
    run: async (r, graph) => {
      await graph(ReceiveMessengerUpdateDocument, { secret: webhookSecret(r), update: r.body as Record<string, unknown> });
      return { status: 200, body: { ok: true } };
    },
  },

};
