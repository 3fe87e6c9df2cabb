/**
 * The signature ceremony: the caller's signature execution, its methods and finalize. The
 * notarization routes (notarizations.ts) run the same entries for notarizations only; method-level
 * routes exist here only and accept a notarization's id or reference too.
 */
import { catalog } from '../../graph/catalog/index.js';
import type { RecordType, SignatureMethodType } from '../../graph/catalog/generated.js';
import { agrId, body, imageRepresentation, methodType, PROTECTED_ACTION, PROTECTED_READ } from '../openapi/operation.js';
import { bind, route, type RestRequest, type RestRoute } from '../operation.js';
import { recordId, withSvg } from './params.js';
import { CEREMONY, EXEC, execution, optionalBody, record } from './record-contract.js';

const { ceremony } = catalog;
const METHOD = `${EXEC}/methods/{method_type}`;

/** The execution a route addresses; with a record type, a record of another type answers 404. */
export const executionOf = (recordType: RecordType | null) => (r: RestRequest) => ({ recordId: recordId(r), recordType, withSvg: withSvg(r) });

/** Finalize's input: the execution, and the acknowledgement of verified parties published on chain. */
export const finalizeOf = (recordType: RecordType | null) => (r: RestRequest) => ({
  ...executionOf(recordType)(r),
  input: { acknowledgePublicVerifiedParties: (r.input.acknowledgePublicVerifiedParties as boolean | undefined) ?? null },
});

const method = (r: RestRequest) => ({ recordId: recordId(r), methodType: (r.params.method_type ?? '') as SignatureMethodType, withSvg: withSvg(r) });

export function ceremonyRoutes(): RestRoute[] {
  return [
    route('post', EXEC, {
      id: 'startSignatureExecution',
      summary: 'Start or resume the signature execution',
      tags: CEREMONY,
      description: 'Starts or resumes the caller\'s signature execution for the current record version.',
      params: [agrId()],
      ok: execution(),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.startExecution, { input: executionOf(null) }),
    }),
    route('get', EXEC, {
      id: 'getSignatureExecution',
      summary: 'Get the signature execution',
      tags: CEREMONY,
      params: [agrId(), imageRepresentation()],
      ok: execution(),
      errors: PROTECTED_READ,
      runs: bind(ceremony.getExecution, { input: executionOf(null) }),
    }),
    route('post', `${METHOD}/start`, {
      id: 'startSignatureMethod',
      summary: 'Start a signature method',
      tags: CEREMONY,
      description:
        'Returns the step instructions (prompt, proof text, proof title, URL or challenge) to give the human.',
      params: [agrId(), methodType()],
      body: body('StartSignatureMethodRequest'),
      ok: execution(),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.startMethod, { issueLocation: 'path', input: (r) => ({ ...method(r), input: r.input }) }),
    }),
    route('post', `${METHOD}/submit`, {
      id: 'submitSignatureMethod',
      summary: 'Submit signature method evidence',
      tags: CEREMONY,
      description:
        'Submits the user-provided value: a signature OTP, a public proof URL or passkey evidence. ' +
        'An authentication code never satisfies a signature method.',
      params: [agrId(), methodType()],
      body: body('SubmitSignatureMethodRequest'),
      ok: execution(),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.submitMethod, { input: (r) => ({ ...method(r), input: r.input }) }),
    }),
    route('post', `${METHOD}/refresh`, {
      id: 'refreshSignatureMethod',
      summary: 'Refresh a pending signature method',
      tags: CEREMONY,
      description: 'Re-checks an asynchronous method (public proof, messenger) while it is pending.',
      params: [agrId(), methodType()],
      body: optionalBody('RefreshSignatureMethodRequest', true),
      ok: execution(),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.refreshMethod, { input: method }),
    }),
    route('post', `${METHOD}/cancel`, {
      id: 'cancelSignatureMethod',
      summary: 'Cancel a pending signature method',
      tags: CEREMONY,
      params: [agrId(), methodType()],
      ok: execution(),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.cancelMethod, { input: method }),
    }),
    route('post', `${EXEC}/finalize`, {
      id: 'finalizeSignatureExecution',
      summary: 'Finalize the signature',
      tags: CEREMONY,
      description:
        'Allowed once `can_finalize` is true. When the record publishes verified parties on chain, ' +
        '`acknowledge_public_verified_parties` must be true (else 409 `acknowledgement_required`).',
      params: [agrId()],
      body: optionalBody('FinalizeSignatureRequest', true),
      ok: record('The record after the signature.'),
      errors: PROTECTED_ACTION,
      runs: bind(ceremony.finalize, { input: finalizeOf(null) }),
    }),
  ];
}
