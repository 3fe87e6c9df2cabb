/** Public verification and the public record: no credentials; document identicons and chain records of sealed records only. */
import { createHash } from 'node:crypto';
import { catalog } from '../../graph/catalog/index.js';
import { agrReference, API, body, imageRepresentation, json, PUBLIC } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { param, withSvg } from './params.js';

const { verification } = catalog;
const reference = param('agr_reference');

/** The REST verification result: the sealed metadata as a JSON object (on GET), and its hash. */
function publicResult<T extends object>(result: T, sealedMetadata: string | null, withMetadata: boolean) {
  const metadata = sealedMetadata ? (JSON.parse(sealedMetadata) as Record<string, unknown>) : null;
  return { ...result, metadataHash: sealedMetadata ? `sha256:${createHash('sha256').update(sealedMetadata, 'utf8').digest('hex')}` : null, ...(withMetadata ? { sealedMetadata: metadata } : {}) };
}

export function verificationRoutes(): RestRoute[] {
  const tags = ['Public verification'];
  const result = json('VerificationResultResponse', 200, 'The verification result.');
  return [
    route('get', `${API}/public/verify/{agr_reference}`, {
      id: 'getPublicVerification',
      summary: 'Look up a public certificate',
      tags,
      description:
        'Certificate and current-authority lookup by reference. Without an artifact this is not proof of a match ' +
        '(verdict `certificate`). An unknown reference answers verdict `not_found`.',
      params: [agrReference(), imageRepresentation()],
      ok: result,
      errors: PUBLIC,
      clientQuota: 'public_verify',
      runs: bind(verification.verifyRecord, {
        input: (r) => ({ reference: reference(r), artifact: null, withSvg: withSvg(r) }),
        body: ({ sealedMetadata, ...answer }) => publicResult(answer, sealedMetadata, true),
      }),
    }),
    route('post', `${API}/public/verify/{agr_reference}`, {
      id: 'verifyPublicRecord',
      summary: 'Verify an artifact against a record',
      tags,
      description: 'Verifies exactly one of: text, body, content hash, document hash or transaction hash.',
      params: [agrReference(), imageRepresentation()],
      body: body('VerifyBodyRequest'),
      ok: result,
      // 503: a transaction hash cannot be checked while the chain is unreachable (never answered as "no match").
      errors: [...PUBLIC, 503],
      clientQuota: 'public_verify',
      runs: bind(verification.verifyRecord, {
        input: (r) => ({ reference: reference(r), artifact: r.input, withSvg: withSvg(r) }),
        body: ({ sealedMetadata, ...answer }) => publicResult(answer, sealedMetadata, false),
      }),
    }),
    route('get', `${API}/public/agreements/{agr_reference}`, {
      id: 'getPublicAgreement',
      summary: 'Get the public view of a record',
      tags,
      description: 'Never exposes signature identicons, cards, bodies or private participant data.',
      params: [agrReference(), imageRepresentation()],
      ok: json('ExternalPublicAgreementResponse', 200, 'The public record.'),
      errors: [404, 429],
      runs: bind(verification.getPublicRecord, { input: (r) => ({ reference: reference(r), withSvg: withSvg(r) }) }),
    }),
  ];
}
