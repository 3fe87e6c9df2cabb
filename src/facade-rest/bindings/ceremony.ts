import { catalog } from '../../graph/catalog/index.js';
import { bind, type RestOperation } from '../operation.js';
import { methodType, recordId, recordTypeOf, withSvg } from './params.js';

const { ceremony } = catalog;

/**
 * The signature-execution routes, shared by /agreements and /notarizations. The notarization ones
 * are equivalent but answer 404 for a record that is not a notarization; method-level routes exist
 * under /agreements only and accept a notarization's id or reference too.
 */
const executionRoutes = (prefix: '' | 'Notarization'): Record<string, RestOperation> => {
  const recordType = recordTypeOf(prefix);
  return {
    [`start${prefix}SignatureExecution`]: bind(ceremony.startExecution, { input: (r) => ({ recordId: recordId(r), recordType, withSvg: withSvg(r) }) }),
    [`get${prefix}SignatureExecution`]: bind(ceremony.getExecution, { input: (r) => ({ recordId: recordId(r), recordType, withSvg: withSvg(r) }) }),
    [`finalize${prefix}SignatureExecution`]: bind(ceremony.finalize, {
      input: (r) => ({
        recordId: recordId(r),
        recordType,
        withSvg: withSvg(r),
        input: { acknowledgePublicVerifiedParties: (r.input.acknowledgePublicVerifiedParties as boolean | undefined) ?? null },
      }),
    }),
  };
};

const method = (r: Parameters<typeof recordId>[0]) => ({ recordId: recordId(r), methodType: methodType(r), withSvg: withSvg(r) });

/** The signature ceremony: executions, methods and finalize. */
export const ceremonyRoutes: Record<string, RestOperation> = {
  ...executionRoutes(''),
  ...executionRoutes('Notarization'),
  startSignatureMethod: bind(ceremony.startMethod, { issueLocation: 'path', input: (r) => ({ ...method(r), input: r.input }) }),
  submitSignatureMethod: bind(ceremony.submitMethod, { input: (r) => ({ ...method(r), input: r.input }) }),
  refreshSignatureMethod: bind(ceremony.refreshMethod, { input: method }),
  cancelSignatureMethod: bind(ceremony.cancelMethod, { input: method }),
};
