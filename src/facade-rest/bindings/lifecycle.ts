import { catalog } from '../../graph/catalog/index.js';
import type { AmendInput, NamedPartyInput, ResolveCounterInput, SubmitCounterInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation, type RestRequest } from '../operation.js';
import { optional, param, recordId } from './params.js';

const { lifecycle } = catalog;
const counter = (r: RestRequest) => ({ id: recordId(r), counterId: param('counter_id')(r) });
const party = (r: RestRequest) => ({ id: recordId(r), partyId: param('party_id')(r) });

/** Lifecycle moves: submit, declines, counters, amendments, cancellations, waivers, resends. */
export const lifecycleRoutes: Record<string, RestOperation> = {
  submitAgreement: bind(lifecycle.submit, { input: (r) => ({ id: recordId(r) }) }),
  declineAgreement: bind(lifecycle.decline, { input: (r) => ({ id: recordId(r), input: { reason: optional(r.input, 'reason') } }) }),
  rescindAgreement: bind(lifecycle.rescind, { input: (r) => ({ id: recordId(r) }) }),
  cancelAgreement: bind(lifecycle.cancel, {
    status: 201,
    input: (r) => ({ id: recordId(r), input: { reason: optional(r.input, 'reason'), summary: optional(r.input, 'summary') } }),
  }),
  amendAgreement: bind(lifecycle.amend, { status: 201, input: (r) => ({ id: recordId(r), input: r.input as AmendInput }) }),
  submitCounter: bind(lifecycle.submitCounter, { status: 201, input: (r) => ({ id: recordId(r), input: r.input as SubmitCounterInput }) }),
  getCounter: bind(lifecycle.getCounter, { input: counter }),
  resolveCounter: bind(lifecycle.resolveCounter, { input: (r) => ({ ...counter(r), input: r.input as ResolveCounterInput }) }),
  withdrawCounter: bind(lifecycle.withdrawCounter, { input: counter }),
  completeWithoutParticipant: bind(lifecycle.completeWithoutParticipant, { input: party }),
  waiveWitness: bind(lifecycle.waiveWitness, { input: party }),
  waiveCoNotarizer: bind(lifecycle.waiveCoNotarizer, { input: party }),
  replaceWitness: bind(lifecycle.replaceWitness, { input: (r) => ({ ...party(r), input: r.input as NamedPartyInput }) }),
  resendInvitation: bind(lifecycle.resendInvitation, { input: party }),
};
