import { createHash } from 'node:crypto';
import { catalog } from '../../graph/catalog/index.js';
import { bind, type RestOperation, type RestRequest } from '../operation.js';
import { param, webhookSecret, withSvg } from './params.js';

const { verification, inbound } = catalog;
const reference = param('agr_reference');

/** Public verification and the public record: no credentials; document identicons and chain records of sealed records only. */
export const verificationRoutes: Record<string, RestOperation> = {
  getPublicAgreement: bind(verification.getPublicRecord, { input: (r) => ({ reference: reference(r), withSvg: withSvg(r) }) }),
  getPublicVerification: bind(verification.verifyRecord, {
    input: (r) => ({ reference: reference(r), artifact: null, withSvg: withSvg(r) }),
    body: ({ sealedMetadata, ...result }) => publicResult(result, sealedMetadata, true),
  }),
  verifyPublicRecord: bind(verification.verifyRecord, {
    input: (r) => ({ reference: reference(r), artifact: r.input, withSvg: withSvg(r) }),
    body: ({ sealedMetadata, ...result }) => publicResult(result, sealedMetadata, false),
  }),
};

/** The REST verification result: the sealed metadata as a JSON object (on GET), and its hash. */
function publicResult<T extends object>(result: T, sealedMetadata: string | null, withMetadata: boolean) {
  const metadata = sealedMetadata ? (JSON.parse(sealedMetadata) as Record<string, unknown>) : null;
  return { ...result, metadataHash: sealedMetadata ? `sha256:${createHash('sha256').update(sealedMetadata, 'utf8').digest('hex')}` : null, ...(withMetadata ? { sealedMetadata: metadata } : {}) };
}

/** Inbound platform calls: the update goes on as sent, not case-converted. */
export const inboundRoutes: Record<string, RestOperation> = {
  receiveMessengerUpdate: bind(inbound.receiveMessengerUpdate, {
    input: (r) => ({ secret: webhookSecret(r), update: r.body as Record<string, unknown> }),
    body: () => ({ ok: true }),
  }),
};

/** The webhook's secret is checked before its body is read: an outsider's payload is never parsed. */
export const inboundGuards = (inboxes: { messenger: { authorize(secret: string): void } }) => ({
  receiveMessengerUpdate: (request: Pick<RestRequest, 'headers' | 'query'>) => inboxes.messenger.authorize(webhookSecret(request)),
});
