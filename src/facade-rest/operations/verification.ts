import { GetPublicRecordDocument, VerifyRecordDocument } from './generated.js';
import type { RestOperation } from '../operation.js';
import { ok } from './shared.js';

const reference = (params: Record<string, string>) => params.agr_reference ?? '';

/** Public verification and the public record: no credentials. Document identicons arrive with sealing. */
export const verificationOperations: Record<string, RestOperation> = {
  getPublicAgreement: {
    access: 'public',
    run: async ({ params }, graph) => {
      const record = (await graph(GetPublicRecordDocument, { reference: reference(params) })).publicRecord;
      return ok({ ...record, blockchain: null, identicon: null });
    },
  },
  getPublicVerification: {
    access: 'public',
    run: async ({ params }, graph) => ok({ ...(await graph(VerifyRecordDocument, { reference: reference(params), artifact: null })).verifyRecord, identicon: null }),
  },
  verifyPublicRecord: {
    access: 'public',
    run: async ({ params, input }, graph) =>
      ok({ ...(await graph(VerifyRecordDocument, { reference: reference(params), artifact: input })).verifyRecord, identicon: null }),
  },
};
