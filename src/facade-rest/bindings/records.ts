import { catalog } from '../../graph/catalog/index.js';
import type { CreateAgreementInput, CreateDeclarationInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation } from '../operation.js';
import { recordId, withSvg } from './params.js';

const { records, notarizations } = catalog;

/** Creating, reading, listing and editing records. */
export const recordsRoutes: Record<string, RestOperation> = {
  listIdentityAgreements: bind(records.list, {
    issueLocation: 'query',
    input: ({ query }) => ({
      status: query.status as string | undefined,
      type: query.type as string | undefined,
      limit: query.limit as number | undefined,
      offset: query.offset as number | undefined,
    }),
    body: (page) => ({ agreements: page.records, total: page.total, limit: page.limit, offset: page.offset }),
  }),
  createAgreement: bind(records.createAgreement, { status: 201, input: ({ input }) => ({ input: input as unknown as CreateAgreementInput }) }),
  createDeclaration: bind(records.createDeclaration, { status: 201, input: ({ input }) => ({ input: input as unknown as CreateDeclarationInput }) }),
  getAgreement: bind(records.get, { input: (r) => ({ id: recordId(r), withSvg: withSvg(r) }) }),
  getNotarization: bind(notarizations.get, { input: (r) => ({ id: recordId(r), withSvg: withSvg(r) }) }),
  updateAgreement: bind(records.update, { input: (r) => ({ id: recordId(r), input: r.input }) }),
  setReminders: bind(records.setReminders, { input: (r) => ({ id: recordId(r), enabled: (r.input as { enabled: boolean }).enabled }) }),
};
