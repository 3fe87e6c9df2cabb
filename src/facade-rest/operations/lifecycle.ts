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
} from './generated.js';
import type { RestOperation } from '../operation.js';
import { ok, created, recordId } from './shared.js';

/** Lifecycle moves: submit, declines, counters, amendments, cancellations, waivers, resends. */
export const lifecycleOperations: Record<string, RestOperation> = {
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
};
