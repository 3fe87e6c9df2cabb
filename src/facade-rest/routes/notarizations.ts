/** Notarizations of content hashes, and their signature execution (method-level routes: ceremony.ts). */
import { catalog } from '../../graph/catalog/index.js';
import type { CreateNotarizationInput } from '../../graph/catalog/generated.js';
import { API, body, idOrRef, imageRepresentation, json, PROTECTED_ACTION, PROTECTED_READ } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { recordId, withSvg } from './params.js';
import { executionOf, finalizeOf } from './ceremony.js';
import { CEREMONY, execution, NOT, optionalBody, record, TEAM_CREATE } from './record-contract.js';

const { notarizations, ceremony } = catalog;

export function notarizationRoutes(): RestRoute[] {
  const tags = ['Notarizations'];
  const ceremonyTags = ['Notarizations', ...CEREMONY];
  return [
    route('post', `${API}/notarizations`, {
      id: 'createNotarization',
      summary: 'Notarize a content hash',
      tags,
      description:
        'Creates a notarization of a file hash, text or bare hash. Unknown properties are rejected. ' +
        '`signature_mode=auto_seal` is available to API-key callers only. Follow `next_action` and `human_step`.',
      body: body('CreateNotarizationRequest'),
      ok: json('ExternalNotarizationResponse', 201, 'The notarization record and what to do next.'),
      errors: TEAM_CREATE,
      runs: bind(notarizations.create, { input: ({ input }) => ({ input: input as unknown as CreateNotarizationInput }) }),
    }),
    route('get', NOT, {
      id: 'getNotarization',
      summary: 'Get a notarization',
      tags,
      params: [idOrRef(), imageRepresentation()],
      ok: record('The notarization record.'),
      errors: PROTECTED_READ,
      runs: bind(notarizations.get, { input: (r) => ({ id: recordId(r), withSvg: withSvg(r) }) }),
    }),
    route('post', `${NOT}/signature-execution`, {
      id: 'startNotarizationSignatureExecution',
      summary: 'Start or resume the notarization signature execution',
      tags: ceremonyTags,
      description:
        'Equivalent to the agreement route. Method-level routes are addressed through ' +
        '`/agreements/{agr_id}/signature-execution/methods/...`.',
      params: [idOrRef()],
      ok: execution(),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.startExecution, { input: executionOf('notarization') }),
    }),
    route('get', `${NOT}/signature-execution`, {
      id: 'getNotarizationSignatureExecution',
      summary: 'Get the notarization signature execution',
      tags: ceremonyTags,
      params: [idOrRef(), imageRepresentation()],
      ok: execution(),
      errors: PROTECTED_READ,
      runs: bind(ceremony.getExecution, { input: executionOf('notarization') }),
    }),
    route('post', `${NOT}/signature-execution/finalize`, {
      id: 'finalizeNotarizationSignatureExecution',
      summary: 'Finalize the notarization signature',
      tags: ceremonyTags,
      params: [idOrRef()],
      body: optionalBody('FinalizeSignatureRequest', true),
      ok: record('The notarization record after the signature.'),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.finalize, { input: finalizeOf('notarization') }),
    }),
  ];
}
