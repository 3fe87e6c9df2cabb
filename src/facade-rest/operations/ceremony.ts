import {
  CancelSignatureMethodDocument,
  FinalizeSignatureDocument,
  GetSignatureExecutionDocument,
  RefreshSignatureMethodDocument,
  StartSignatureExecutionDocument,
  StartSignatureMethodDocument,
  SubmitSignatureMethodDocument,
} from './generated.js';
import type { RestOperation } from '../operation.js';
import { ok, recordId, methodType, withSvg } from './shared.js';

/**
 * The signature-execution routes, shared by /agreements and /notarizations. The notarization ones
 * are equivalent but answer 404 for a record that is not a notarization; method-level routes exist
 * under /agreements only and accept a notarization's id or reference too.
 */
const executionOperations = (prefix: '' | 'Notarization'): Record<string, RestOperation> => {
  const recordType = prefix === 'Notarization' ? ('notarization' as const) : null;
  return {
    [`start${prefix}SignatureExecution`]: {
      access: 'authenticated',
      run: async (r, graph) =>
        ok((await graph(StartSignatureExecutionDocument, { recordId: recordId(r), recordType, withSvg: withSvg(r) })).startSignatureExecution),
    },
    [`get${prefix}SignatureExecution`]: {
      access: 'authenticated',
      run: async (r, graph) =>
        ok((await graph(GetSignatureExecutionDocument, { recordId: recordId(r), recordType, withSvg: withSvg(r) })).signatureExecution),
    },
    [`finalize${prefix}SignatureExecution`]: {
      access: 'authenticated',
      run: async (r, graph) => {
        const acknowledge = (r.input.acknowledgePublicVerifiedParties as boolean | undefined) ?? null;
        const input = { acknowledgePublicVerifiedParties: acknowledge };
        return ok((await graph(FinalizeSignatureDocument, { recordId: recordId(r), recordType, withSvg: withSvg(r), input })).finalizeSignature);
      },
    },
  };
};

/** The signature ceremony: executions, methods and finalize. */
export const ceremonyOperations: Record<string, RestOperation> = {
  ...executionOperations(''),
  ...executionOperations('Notarization'),
  startSignatureMethod: {
    access: 'authenticated',
    issueLocation: 'path',
    run: async (r, graph) =>
      ok(
        (await graph(StartSignatureMethodDocument, { recordId: recordId(r), methodType: methodType(r), input: r.input, withSvg: withSvg(r) }))
          .startSignatureMethod,
      ),
  },
  submitSignatureMethod: {
    access: 'authenticated',
    run: async (r, graph) =>
      ok(
        (await graph(SubmitSignatureMethodDocument, { recordId: recordId(r), methodType: methodType(r), input: r.input, withSvg: withSvg(r) }))
          .submitSignatureMethod,
      ),
  },
  refreshSignatureMethod: {
    access: 'authenticated',
    run: async (r, graph) =>
      ok((await graph(RefreshSignatureMethodDocument, { recordId: recordId(r), methodType: methodType(r), withSvg: withSvg(r) })).refreshSignatureMethod),
  },
  cancelSignatureMethod: {
    access: 'authenticated',
    run: async (r, graph) =>
      ok((await graph(CancelSignatureMethodDocument, { recordId: recordId(r), methodType: methodType(r), withSvg: withSvg(r) })).cancelSignatureMethod),
  },
};
