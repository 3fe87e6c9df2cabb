import { entry } from './entry.js';
import {
  AmendAgreementDocument,
  CancelAgreementDocument,
  CompleteWithoutParticipantDocument,
  DeclineAgreementDocument,
  GetCounterDocument,
  ReplaceWitnessDocument,
  RescindAgreementDocument,
  ResendInvitationDocument,
  ResolveCounterDocument,
  SubmitAgreementDocument,
  SubmitCounterDocument,
  WaiveCoNotarizerDocument,
  WaiveWitnessDocument,
  WithdrawCounterDocument,
} from './generated.js';

/** Lifecycle moves: submit, declines, counters, amendments, cancellations, waivers, resends. */
export const lifecycle = {
  submit: entry('lifecycle.submit', SubmitAgreementDocument, (data) => data.submitAgreement),
  decline: entry('lifecycle.decline', DeclineAgreementDocument, (data) => data.declineAgreement),
  rescind: entry('lifecycle.rescind', RescindAgreementDocument, (data) => data.rescindAgreement),
  /** A draft is cancelled in place (cancelled_draft); a sealed record gets a mutual cancellation draft. */
  cancel: entry('lifecycle.cancel', CancelAgreementDocument, (data) => data.cancelAgreement),
  amend: entry('lifecycle.amend', AmendAgreementDocument, (data) => data.amendAgreement),
  submitCounter: entry('lifecycle.submitCounter', SubmitCounterDocument, (data) => data.submitCounter),
  getCounter: entry('lifecycle.getCounter', GetCounterDocument, (data) => data.counter),
  resolveCounter: entry('lifecycle.resolveCounter', ResolveCounterDocument, (data) => data.resolveCounter),
  withdrawCounter: entry('lifecycle.withdrawCounter', WithdrawCounterDocument, (data) => data.withdrawCounter),
  completeWithoutParticipant: entry('lifecycle.completeWithoutParticipant', CompleteWithoutParticipantDocument, (data) => data.completeWithoutParticipant),
  waiveWitness: entry('lifecycle.waiveWitness', WaiveWitnessDocument, (data) => data.waiveWitness),
  waiveCoNotarizer: entry('lifecycle.waiveCoNotarizer', WaiveCoNotarizerDocument, (data) => data.waiveCoNotarizer),
  replaceWitness: entry('lifecycle.replaceWitness', ReplaceWitnessDocument, (data) => data.replaceWitness),
  resendInvitation: entry('lifecycle.resendInvitation', ResendInvitationDocument, (data) => data.resendInvitation),
};
