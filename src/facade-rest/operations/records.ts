import {
  CreateAgreementDocument,
  CreateDeclarationDocument,
  GetRecordDocument,
  ListMyRecordsDocument,
  UpdateAgreementDocument,
  type CreateAgreementInput,
  type CreateDeclarationInput,
  type RecordStatus,
  type RecordType,
} from './generated.js';
import type { RestOperation } from '../operation.js';
import { ok, created, recordId, withSvg } from './shared.js';
import { DomainError } from '../../domain/shared/errors.js';

/** Creating, reading, listing and editing records. */
export const recordsOperations: Record<string, RestOperation> = {
  listIdentityAgreements: {
    access: 'authenticated',
    issueLocation: 'query',
    run: async ({ query }, graph) => {
      const page = (
        await graph(ListMyRecordsDocument, {
          status: (query.status as RecordStatus | undefined) ?? null,
          type: (query.type as RecordType | undefined) ?? null,
          limit: (query.limit as number | undefined) ?? 20,
          offset: (query.offset as number | undefined) ?? 0,
        })
      ).myRecords;
      return ok({ agreements: page.records, total: page.total, limit: page.limit, offset: page.offset });
    },
  },
  createAgreement: {
    access: 'authenticated',
    run: async ({ input }, graph) =>
      created((await graph(CreateAgreementDocument, { input: input as unknown as CreateAgreementInput })).createAgreement),
  },
  createDeclaration: {
    access: 'authenticated',
    run: async ({ input }, graph) =>
      created((await graph(CreateDeclarationDocument, { input: input as unknown as CreateDeclarationInput })).createDeclaration),
  },
  getAgreement: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(GetRecordDocument, { id: recordId(r), withSvg: withSvg(r) })).record),
  },
  getNotarization: {
    access: 'authenticated',
    run: async (r, graph) => {
      const { record } = await graph(GetRecordDocument, { id: recordId(r), withSvg: withSvg(r) });
      if (record.type !== 'notarization') throw new DomainError('not_found', 'Notarization not found');
      return ok(record);
    },
  },
  updateAgreement: {
    access: 'authenticated',
    run: async ({ params, input }, graph) =>
      ok((await graph(UpdateAgreementDocument, { id: params.agr_id ?? '', input: input })).updateAgreement),
  },
};
