import {
  AmendAgreementDocument,
  CancelAgreementDocument,
  CompleteWithoutParticipantDocument,
  GetCounterDocument,
  ReplaceWitnessDocument,
  ResendInvitationDocument,
  ResolveCounterDocument,
  SubmitCounterDocument,
  WaiveCoNotarizerDocument,
  WaiveWitnessDocument,
  WithdrawCounterDocument,
  type AmendInput,
  type NamedPartyInput,
  type ResolveCounterInput,
  type SubmitCounterInput,
  DeclineAgreementDocument,
  RescindAgreementDocument,
  SubmitAgreementDocument,
  CancelSignatureMethodDocument,
  FinalizeSignatureDocument,
  GetSignatureExecutionDocument,
  RefreshSignatureMethodDocument,
  StartSignatureExecutionDocument,
  StartSignatureMethodDocument,
  SubmitSignatureMethodDocument,
  type SignatureMethodType,
  CreateAgreementDocument,
  CreateApiKeyDocument,
  CreateDeclarationDocument,
  GetRecordDocument,
  LinkContactPointDocument,
  ListApiKeysDocument,
  ListContactPointsDocument,
  ListMyRecordsDocument,
  RequestOtpDocument,
  RevokeApiKeyDocument,
  UpdateAgreementDocument,
  VerifyOtpDocument,
  ReceiveMessengerUpdateDocument,
  type CreateAgreementInput,
  type CreateApiKeyInput,
  type CreateDeclarationInput,
  type LinkContactPointInput,
  type RecordStatus,
  type RecordType,
  type RequestOtpInput,
  type VerifyOtpInput,
} from './operations/generated.js';
import { snakeKeys } from './case.js';
import type { RestOperation, RestRequest } from './operation.js';
import { DomainError } from '../domain/shared/errors.js';

const ok = (body: unknown) => ({ status: 200, body: snakeKeys(body) });
const created = (body: unknown) => ({ status: 201, body: snakeKeys(body) });

const recordId = ({ params }: RestRequest) => params.agr_id ?? params.id_or_ref ?? '';
const methodType = ({ params }: RestRequest) => (params.method_type ?? '') as SignatureMethodType;
/** `image_representation=compatibility_data_uri` adds `svg_data_uri` to identicons; never otherwise. */
const withSvg = ({ query }: RestRequest) => query.image_representation === 'compatibility_data_uri';
/** The webhook secret: the platform's secret-token header, else the `secret` query parameter. */
const webhookSecret = ({ headers, query }: RestRequest) => {
  const header = headers['x-telegram-bot-api-secret-token'];
  return typeof header === 'string' ? header : typeof query.secret === 'string' ? query.secret : '';
};

/**
 * The signature-execution routes, shared by /agreements and /notarizations. The notarization ones
 * are equivalent but answer 404 for a record that is not a notarization; method-level routes exist
 * under /agreements only and accept a notarization's id or reference too.
 */
const ceremonyOperations = (prefix: '' | 'Notarization'): Record<string, RestOperation> => {
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

/**
 * The REST facade as a mapping table: operationId -> GraphQL document + mappers. Operations of
 * the contract that are not listed answer 501 until their capability lands.
 */
export const restOperations: Record<string, RestOperation> = {
  requestOtp: {
    access: 'public',
    run: async ({ input }, graph) => ok((await graph(RequestOtpDocument, { input: input as RequestOtpInput })).requestOtp),
  },
  verifyOtp: {
    access: 'public',
    run: async ({ input }, graph) => ok((await graph(VerifyOtpDocument, { input: input as VerifyOtpInput })).verifyOtp),
  },
  listContactPoints: {
    access: 'authenticated',
    run: async (_, graph) => ok({ contactPoints: (await graph(ListContactPointsDocument, {})).contactPoints }),
  },
  linkContactPoint: {
    access: 'authenticated',
    run: async ({ input }, graph) =>
      ok({ contactPoint: (await graph(LinkContactPointDocument, { input: input as LinkContactPointInput })).linkContactPoint }),
  },
  listApiKeys: {
    access: 'authenticated',
    run: async (_, graph) => ok({ apiKeys: (await graph(ListApiKeysDocument, {})).apiKeys }),
  },
  createApiKey: {
    access: 'authenticated',
    run: async ({ input }, graph) => {
      const { apiKey, key } = (await graph(CreateApiKeyDocument, { input: input as CreateApiKeyInput })).createApiKey;
      return created({ ...apiKey, key });
    },
  },
  revokeApiKey: {
    access: 'authenticated',
    issueLocation: 'path',
    run: async ({ params }, graph) => {
      await graph(RevokeApiKeyDocument, { id: params.key_id ?? '' });
      return { status: 204 };
    },
  },
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
  ...ceremonyOperations(''),
  ...ceremonyOperations('Notarization'),
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
  submitAgreement: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(SubmitAgreementDocument, { id: recordId(r) })).submitAgreement),
  },
  declineAgreement: {
    access: 'authenticated',
    run: async (r, graph) =>
      ok((await graph(DeclineAgreementDocument, { id: recordId(r), input: { reason: (r.input.reason as string | undefined) ?? null } })).declineAgreement),
  },
  rescindAgreement: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(RescindAgreementDocument, { id: recordId(r) })).rescindAgreement),
  },
  cancelAgreement: {
    access: 'authenticated',
    // A draft is cancelled in place (cancelled_draft); a sealed record gets a mutual cancellation draft.
    run: async (r, graph) =>
      created(
        (
          await graph(CancelAgreementDocument, {
            id: recordId(r),
            input: { reason: (r.input.reason as string | undefined) ?? null, summary: (r.input.summary as string | undefined) ?? null },
          })
        ).cancelAgreement,
      ),
  },
  amendAgreement: {
    access: 'authenticated',
    run: async (r, graph) => created((await graph(AmendAgreementDocument, { id: recordId(r), input: r.input as AmendInput })).amendAgreement),
  },
  submitCounter: {
    access: 'authenticated',
    run: async (r, graph) => created((await graph(SubmitCounterDocument, { id: recordId(r), input: r.input as SubmitCounterInput })).submitCounter),
  },
  getCounter: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(GetCounterDocument, { id: recordId(r), counterId: r.params.counter_id ?? '' })).counter),
  },
  resolveCounter: {
    access: 'authenticated',
    run: async (r, graph) =>
      ok((await graph(ResolveCounterDocument, { id: recordId(r), counterId: r.params.counter_id ?? '', input: r.input as ResolveCounterInput })).resolveCounter),
  },
  withdrawCounter: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(WithdrawCounterDocument, { id: recordId(r), counterId: r.params.counter_id ?? '' })).withdrawCounter),
  },
  completeWithoutParticipant: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(CompleteWithoutParticipantDocument, { id: recordId(r), partyId: r.params.party_id ?? '' })).completeWithoutParticipant),
  },
  waiveWitness: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(WaiveWitnessDocument, { id: recordId(r), partyId: r.params.party_id ?? '' })).waiveWitness),
  },
  waiveCoNotarizer: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(WaiveCoNotarizerDocument, { id: recordId(r), partyId: r.params.party_id ?? '' })).waiveCoNotarizer),
  },
  replaceWitness: {
    access: 'authenticated',
    run: async (r, graph) =>
      ok((await graph(ReplaceWitnessDocument, { id: recordId(r), partyId: r.params.party_id ?? '', input: r.input as NamedPartyInput })).replaceWitness),
  },
  resendInvitation: {
    access: 'authenticated',
    run: async (r, graph) => ok((await graph(ResendInvitationDocument, { id: recordId(r), partyId: r.params.party_id ?? '' })).resendInvitation),
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
  receiveMessengerUpdate: {
    access: 'public',
    // The update's keys belong to the platform: it goes on as sent, not case-converted.
    run: async (r, graph) => {
      await graph(ReceiveMessengerUpdateDocument, { secret: webhookSecret(r), update: r.body as Record<string, unknown> });
      return { status: 200, body: { ok: true } };
    },
  },
};
