import type { DomainOperation } from '../../domain/identity/operation-access.js';
import type { RestOperation } from '../operation.js';
import { artifactsRoutes } from './artifacts.js';
import { ceremonyRoutes } from './ceremony.js';
import { identityRoutes } from './identity.js';
import { lifecycleRoutes } from './lifecycle.js';
import { notarizationsRoutes } from './notarizations.js';
import { recordsRoutes } from './records.js';
import { plannedRoutes } from './planned.js';
import { inboundRoutes, verificationRoutes } from './verification.js';
import { webhookRoutes } from './webhooks.js';
import { teamRoutes } from './teams.js';
import { templateRoutes } from './templates.js';
import { bulkSendRoutes } from './bulk-sends.js';
import { exportRoutes } from './exports.js';

export { inboundGuards } from './verification.js';

/**
 * The REST facade as a table: operationId -> catalog entry + HTTP details, one file per capability
 * (mirroring src/graph/catalog). Operations of the contract that are not listed answer 501.
 */
export const restBindings: Record<string, RestOperation> = {
  ...identityRoutes,
  ...recordsRoutes,
  ...ceremonyRoutes,
  ...lifecycleRoutes,
  ...notarizationsRoutes,
  ...verificationRoutes,
  ...inboundRoutes,
  ...artifactsRoutes,
  ...webhookRoutes,
  ...teamRoutes,
  ...templateRoutes,
  ...bulkSendRoutes,
  ...exportRoutes,
};

/** The domain operation a contract operationId runs (bound or planned); null for the meta routes. */
export function domainOperationOf(operationId: string): DomainOperation | null {
  const planned = (plannedRoutes as Record<string, DomainOperation>)[operationId];
  return planned ?? restBindings[operationId]?.operation?.name ?? null;
}
