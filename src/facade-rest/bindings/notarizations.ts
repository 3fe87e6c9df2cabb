import { catalog } from '../../graph/catalog/index.js';
import type { CreateNotarizationInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation } from '../operation.js';

/** Notarizations of content hashes (GET lives with records, the execution routes with the ceremony). */
export const notarizationsRoutes: Record<string, RestOperation> = {
  createNotarization: bind(catalog.notarizations.create, { status: 201, input: ({ input }) => ({ input: input as unknown as CreateNotarizationInput }) }),
};
