import { CreateNotarizationDocument, type CreateNotarizationInput } from './generated.js';
import type { RestOperation } from '../operation.js';
import { created } from './shared.js';

/** Notarizations of content hashes (GET and the execution routes live with records and the ceremony). */
export const notarizationsOperations: Record<string, RestOperation> = {
  createNotarization: {
    access: 'authenticated',
    run: async ({ input }, graph) => created((await graph(CreateNotarizationDocument, { input: input as unknown as CreateNotarizationInput })).createNotarization),
  },
};
