/** Lifecycle moves on records: declines, resends, waivers, replacements, rescission, amendment and cancellation. */
import { catalog } from '../../graph/catalog/index.js';
import type { AmendInput, NamedPartyInput } from '../../graph/catalog/generated.js';
import { agrId, body, partyId, PROTECTED_ACTION } from '../openapi/operation.js';
import { bind, route, type RestRequest, type RestRoute } from '../operation.js';
import { optional, param, recordId } from './params.js';
import { AGR, created, LIFECYCLE, optionalBody, record } from './record-contract.js';

const { lifecycle } = catalog;
const party = (r: RestRequest) => ({ id: recordId(r), partyId: param('party_id')(r) });

export function lifecycleRoutes(): RestRoute[] {
  const participant = (segment: string) => `${AGR}/${segment}/{party_id}`;
  return [
    route('post', `${AGR}/decline`, {
      id: 'declineAgreement',
      summary: 'Decline to sign',
      tags: LIFECYCLE,
      description: 'For non-initiator participants and witnesses.',
      params: [agrId()],
      body: optionalBody('DeclineRequest', false),
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.decline, { input: (r) => ({ id: recordId(r), input: { reason: optional(r.input, 'reason') } }) }),
    }),
    route('post', `${participant('participants')}/resend-invitation`, {
      id: 'resendInvitation',
      summary: 'Resend an invitation',
      tags: LIFECYCLE,
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.resendInvitation, { input: party }),
    }),
    route('post', `${participant('participants')}/complete-without`, {
      id: 'completeWithoutParticipant',
      summary: 'Complete without a participant',
      tags: LIFECYCLE,
      description: 'Applies to an eligible declined or removed participant.',
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.completeWithoutParticipant, { input: party }),
    }),
    route('post', `${participant('witnesses')}/waive`, {
      id: 'waiveWitness',
      summary: 'Waive a witness',
      tags: LIFECYCLE,
      description: 'Applies to an eligible declined or removed witness.',
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.waiveWitness, { input: party }),
    }),
    route('post', `${participant('witnesses')}/replace`, {
      id: 'replaceWitness',
      summary: 'Replace a witness',
      tags: LIFECYCLE,
      description: 'Replaces an eligible declined or removed witness with a newly invited one.',
      params: [agrId(), partyId()],
      body: body('NamedPartyInput'),
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.replaceWitness, { input: (r) => ({ ...party(r), input: r.input as NamedPartyInput }) }),
    }),
    route('post', `${participant('co-notarizers')}/waive`, {
      id: 'waiveCoNotarizer',
      summary: 'Waive a co-notarizer',
      tags: LIFECYCLE,
      description: 'Applies to an eligible declined or removed co-notarizer of a notarization.',
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.waiveCoNotarizer, { input: party }),
    }),
    route('post', `${AGR}/rescind`, {
      id: 'rescindAgreement',
      summary: 'Rescind a pending record',
      tags: LIFECYCLE,
      description: 'Initiator only; ends a pending agreement, declaration or notarization (status `rescinded`).',
      params: [agrId()],
      ok: record(),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.rescind, { input: (r) => ({ id: recordId(r) }) }),
    }),
    route('post', `${AGR}/amend`, {
      id: 'amendAgreement',
      summary: 'Amend a sealed record',
      tags: LIFECYCLE,
      description:
        'Creates a new amendment draft linked through `supersedes_agr_id` / `superseded_by_agr_id`.',
      params: [agrId()],
      body: body('AmendAgreementRequest'),
      ok: created('The amendment draft.'),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.amend, { input: (r) => ({ id: recordId(r), input: r.input as AmendInput }) }),
    }),
    route('post', `${AGR}/cancel`, {
      id: 'cancelAgreement',
      summary: 'Mutually cancel a sealed record',
      tags: LIFECYCLE,
      description: 'Creates a mutual cancellation draft for the sealed record.',
      params: [agrId()],
      body: optionalBody('CancelAgreementRequest', false),
      ok: created('The cancellation draft.'),
      errors: PROTECTED_ACTION,
      runs: bind(lifecycle.cancel, {
        input: (r) => ({ id: recordId(r), input: { reason: optional(r.input, 'reason'), summary: optional(r.input, 'summary') } }),
      }),
    }),
  ];
}
