import { ceremonyOperations } from './operations/ceremony.js';
import { identityOperations } from './operations/identity.js';
import { inboundOperations } from './operations/inbound.js';
import { lifecycleOperations } from './operations/lifecycle.js';
import { notarizationsOperations } from './operations/notarizations.js';
import { verificationOperations } from './operations/verification.js';
import { recordsOperations } from './operations/records.js';
import type { RestOperation } from './operation.js';

/**
 * The REST facade as a mapping table: operationId -> GraphQL document + mappers, one file per
 * capability beside its .graphql documents. Operations of the contract that are not listed answer
 * 501 until their capability lands.
 */
export const restOperations: Record<string, RestOperation> = {
  ...identityOperations,
  ...recordsOperations,
  ...ceremonyOperations,
  ...lifecycleOperations,
  ...notarizationsOperations,
  ...verificationOperations,
  ...inboundOperations,
};
