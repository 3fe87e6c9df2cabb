/**
 * Every route of the REST API and the root meta routes, one module per capability: each route is its
 * OpenAPI operation with, beside it, what it runs. The served document (openapi/index.ts) and the
 * router's handlers are both made from this list, in this order (the contract's).
 */
import type { RestRoute } from '../operation.js';
import { artifactRoutes, ticketRoutes } from './artifacts.js';
import { bulkSendRoutes } from './bulk-sends.js';
import { ceremonyRoutes } from './ceremony.js';
import { counterProposalRoutes } from './counter-proposals.js';
import { exportRoutes } from './exports.js';
import { identityRoutes } from './identity.js';
import { inboundRoutes } from './inbound.js';
import { lifecycleRoutes } from './lifecycle.js';
import { metaRoutes } from './meta.js';
import { notarizationRoutes } from './notarizations.js';
import { recordRoutes } from './records.js';
import { teamRoutes } from './teams.js';
import { templateRoutes } from './templates.js';
import { verificationRoutes } from './verification.js';
import { webhookRoutes } from './webhooks.js';

/** A fresh list each call: the document is built from it, and a consumer may change the document it got. */
export function restRoutes(): RestRoute[] {
  return [
    ...metaRoutes(),
    ...recordRoutes(),
    ...ceremonyRoutes(),
    ...lifecycleRoutes(),
    ...counterProposalRoutes(),
    ...artifactRoutes(),
    ...notarizationRoutes(),
    ...identityRoutes(),
    ...webhookRoutes(),
    ...teamRoutes(),
    ...templateRoutes(),
    ...bulkSendRoutes(),
    ...exportRoutes(),
    ...verificationRoutes(),
    ...ticketRoutes(),
    ...inboundRoutes(),
  ];
}
