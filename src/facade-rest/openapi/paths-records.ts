/**
 * Routes on records: agreements and declarations, the signature ceremony, lifecycle actions,
 * counter-proposals, notarizations and their private artifacts.
 */
import { jsonBody, nullable, ref } from './helpers.js';
import {
  agrId,
  binary,
  counterId,
  idOrRef,
  imageRepresentation,
  json,
  methodType,
  partyId,
  PROTECTED_ACTION,
  PROTECTED_CREATE,
  PROTECTED_READ,
  route,
  type ErrorStatus,
  type Route,
} from './operation.js';

export const API = '/api/v1';
const AGR = `${API}/agreements/{agr_id}`;
const EXEC = `${AGR}/signature-execution`;
const METHOD = `${EXEC}/methods/{method_type}`;
const NOT = `${API}/notarizations/{id_or_ref}`;

const record = (description = 'The record.') => json('ExternalAgreementResponse', 200, description);
const created = (description: string) => json('ExternalAgreementResponse', 201, description);
const execution = (description = "The caller's signature execution.") =>
  json('SignatureExecutionResponse', 200, description);
const ticket = () => json('ShareCardTicketResponse', 200, 'A short-lived, single-use card URL.');
const body = (schema: string) => jsonBody(ref(schema), true);
const optionalBody = (schema: string, allowNull: boolean) =>
  jsonBody(allowNull ? nullable(ref(schema)) : ref(schema), false);

const CEREMONY = ['Signature ceremony'];
const LIFECYCLE = ['Lifecycle'];

/** Creating a record: a `team_id` the caller is not in answers 404 (a team's existence is not told). */
const TEAM_CREATE: ErrorStatus[] = [...PROTECTED_CREATE, 404];

function agreementRoutes(): Route[] {
  return [
    route('post', `${API}/agreements`, {
      id: 'createAgreement',
      summary: 'Create an agreement draft',
      tags: ['Agreements'],
      description:
        'Creates a draft record (type `agreement` by default) with the caller as initiator. The response carries ' +
        'the initiator signature state; sign with the signature ceremony, then submit. With `team_id` the team owns it ' +
        "(the caller's member role needed; 404 for a team the caller is not in); a team's API key creates for its team.",
      body: body('CreateAgreementRequest'),
      ok: created('The draft record.'),
      errors: TEAM_CREATE,
    }),
    route('get', AGR, {
      id: 'getAgreement',
      summary: 'Get a record',
      tags: ['Agreements'],
      description: 'Any record the caller\'s identity graph may read, by identifier or AGR reference.',
      params: [agrId(), imageRepresentation()],
      ok: record(),
      errors: PROTECTED_READ,
    }),
    route('patch', AGR, {
      id: 'updateAgreement',
      summary: 'Update a draft',
      tags: ['Agreements'],
      description: 'Updates an eligible draft. A body change resets the initiator\'s signature work for the draft.',
      params: [agrId()],
      body: body('UpdateAgreementRequest'),
      ok: record('The updated draft.'),
      errors: PROTECTED_ACTION,
    }),
    route('put', `${AGR}/reminders`, {
      id: 'setReminders',
      summary: 'Turn reminders off or on',
      tags: LIFECYCLE,
      description:
        'Reminders (mail, or a messenger message where that is the contact point) to the participants who have been invited and have not signed, on the record\'s schedule (`reminders` on create, or the ' +
        'service defaults). The initiator (or an admin of the record\'s team) turns them off or on.',
      params: [agrId()],
      body: body('SetRemindersRequest'),
      ok: record('The record with its reminders setting.'),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${AGR}/submit`, {
      id: 'submitAgreement',
      summary: 'Submit a signed draft',
      tags: ['Agreements'],
      description:
        'Moves an already signed draft to confirmation and sends the invitations to participants. 409 when the initiator ' +
        'has not finalized the current version; 422 (on `parties` or `witnesses`) when the type needs participants the draft lacks.',
      params: [agrId()],
      ok: record('The record awaiting confirmation (or sealed at once when nobody else needs to sign).'),
      errors: [...PROTECTED_ACTION, 422],
    }),
    route('post', `${API}/declarations`, {
      id: 'createDeclaration',
      summary: 'Create a declaration draft',
      tags: ['Agreements'],
      description: 'Creates a single-declarant draft, optionally with witnesses.',
      body: body('CreateDeclarationRequest'),
      ok: created('The draft declaration.'),
      errors: TEAM_CREATE,
    }),
  ];
}

function ceremonyRoutes(): Route[] {
  return [
    route('post', EXEC, {
      id: 'startSignatureExecution',
      summary: 'Start or resume the signature execution',
      tags: CEREMONY,
      description: 'Starts or resumes the caller\'s signature execution for the current record version.',
      params: [agrId()],
      ok: execution(),
      errors: PROTECTED_ACTION,
    }),
    route('get', EXEC, {
      id: 'getSignatureExecution',
      summary: 'Get the signature execution',
      tags: CEREMONY,
      params: [agrId(), imageRepresentation()],
      ok: execution(),
      errors: PROTECTED_READ,
    }),
    route('post', `${METHOD}/start`, {
      id: 'startSignatureMethod',
      summary: 'Start a signature method',
      tags: CEREMONY,
      description:
        'Returns the step instructions (prompt, proof text, proof title, URL or challenge) to give the human.',
      params: [agrId(), methodType()],
      body: body('StartSignatureMethodRequest'),
      ok: execution(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${METHOD}/submit`, {
      id: 'submitSignatureMethod',
      summary: 'Submit signature method evidence',
      tags: CEREMONY,
      description:
        'Submits the user-provided value: a signature OTP, a public proof URL or passkey evidence. ' +
        'An authentication code never satisfies a signature method.',
      params: [agrId(), methodType()],
      body: body('SubmitSignatureMethodRequest'),
      ok: execution(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${METHOD}/refresh`, {
      id: 'refreshSignatureMethod',
      summary: 'Refresh a pending signature method',
      tags: CEREMONY,
      description: 'Re-checks an asynchronous method (public proof, messenger) while it is pending.',
      params: [agrId(), methodType()],
      body: optionalBody('RefreshSignatureMethodRequest', true),
      ok: execution(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${METHOD}/cancel`, {
      id: 'cancelSignatureMethod',
      summary: 'Cancel a pending signature method',
      tags: CEREMONY,
      params: [agrId(), methodType()],
      ok: execution(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${EXEC}/finalize`, {
      id: 'finalizeSignatureExecution',
      summary: 'Finalize the signature',
      tags: CEREMONY,
      description:
        'Allowed once `can_finalize` is true. When the record publishes verified parties on chain, ' +
        '`acknowledge_public_verified_parties` must be true (else 409 `acknowledgement_required`).',
      params: [agrId()],
      body: optionalBody('FinalizeSignatureRequest', true),
      ok: record('The record after the signature.'),
      errors: PROTECTED_ACTION,
    }),
  ];
}

function lifecycleRoutes(): Route[] {
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
    }),
    route('post', `${participant('participants')}/resend-invitation`, {
      id: 'resendInvitation',
      summary: 'Resend an invitation',
      tags: LIFECYCLE,
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${participant('participants')}/complete-without`, {
      id: 'completeWithoutParticipant',
      summary: 'Complete without a participant',
      tags: LIFECYCLE,
      description: 'Applies to an eligible declined or removed participant.',
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${participant('witnesses')}/waive`, {
      id: 'waiveWitness',
      summary: 'Waive a witness',
      tags: LIFECYCLE,
      description: 'Applies to an eligible declined or removed witness.',
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
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
    }),
    route('post', `${participant('co-notarizers')}/waive`, {
      id: 'waiveCoNotarizer',
      summary: 'Waive a co-notarizer',
      tags: LIFECYCLE,
      description: 'Applies to an eligible declined or removed co-notarizer of a notarization.',
      params: [agrId(), partyId()],
      ok: record(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${AGR}/rescind`, {
      id: 'rescindAgreement',
      summary: 'Rescind a pending record',
      tags: LIFECYCLE,
      description: 'Initiator only; ends a pending agreement, declaration or notarization (status `rescinded`).',
      params: [agrId()],
      ok: record(),
      errors: PROTECTED_ACTION,
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
    }),
  ];
}

function counterRoutes(): Route[] {
  const COUNTER = `${AGR}/counter/{counter_id}`;
  const tags = ['Counter-proposals'];
  return [
    route('post', `${AGR}/counter`, {
      id: 'submitCounter',
      summary: 'Submit a counter-proposal',
      tags,
      description: 'Non-initiator parties only; one active counter-proposal per record (409 `counter_active`).',
      params: [agrId()],
      body: body('SubmitCounterRequest'),
      ok: json('CounterProposalResponse', 201, 'The pending counter-proposal.'),
      errors: PROTECTED_ACTION,
    }),
    route('get', COUNTER, {
      id: 'getCounter',
      summary: 'Get a counter-proposal',
      tags,
      description: 'Any party of the record may read it.',
      params: [agrId(), counterId()],
      ok: json('CounterProposalResponse', 200, 'The counter-proposal.'),
      errors: PROTECTED_READ,
    }),
    route('post', `${COUNTER}/resolve`, {
      id: 'resolveCounter',
      summary: 'Resolve a counter-proposal',
      tags,
      description:
        'Initiator only: accept, partially accept (resolved body required) or reject. An accepted body change ' +
        'increments `current_version` and resets affected signature work.',
      params: [agrId(), counterId()],
      body: body('ResolveCounterRequest'),
      ok: record(),
      errors: PROTECTED_ACTION,
    }),
    route('post', `${COUNTER}/withdraw`, {
      id: 'withdrawCounter',
      summary: 'Withdraw a counter-proposal',
      tags,
      description: 'Proposing party only.',
      params: [agrId(), counterId()],
      ok: record(),
      errors: PROTECTED_ACTION,
    }),
  ];
}

function artifactRoutes(): Route[] {
  const tags = ['Artifacts'];
  const cardNote = 'Private card of a sealed record for an authorized participant; generated lazily if absent.';
  const ticketNote =
    'Issues a short-lived (five minutes by default), single-use URL for the card of the authenticated participant. ' +
    'The URL reveals no record data and is not a presigned storage URL.';
  return [
    route('get', `${AGR}/document`, {
      id: 'getAgreementDocument',
      summary: 'Download the sealed PDF',
      tags,
      description:
        'The sealed PDF of an agreement, declaration or witnessed agreement, signed with the service\'s seal (PAdES, ' +
        'ETSI.CAdES.detached), with a certificate of completion and `sealed-metadata.json` and `audit-trail.json` ' +
        'attached. The `ETag` is the document hash (sha256 of these exact bytes). Notarizations have no PDF (404). ' +
        'While the PDF is being made: 409 `artifact_pending` with `Retry-After`.',
      params: [agrId()],
      ok: binary('application/pdf', 'The sealed signed PDF.', {
        ETag: { description: 'The document hash, `"sha256:<hex>"`.', schema: { type: 'string' } },
        'Content-Disposition': { description: 'attachment; filename="<reference>.pdf"', schema: { type: 'string' } },
      }),
      errors: [401, 403, 404, 409, 429],
    }),
    route('get', `${AGR}/audit-trail`, {
      id: 'getAgreementAuditTrail',
      summary: 'Read the audit trail',
      tags,
      description:
        'Every lifecycle move and ceremony step of the record, hash-chained (each entry commits to the previous one; ' +
        'the seal commits to the head), checked on read. Participants only.',
      params: [agrId()],
      ok: json('AuditTrailResponse', 200, 'The audit trail.'),
      errors: PROTECTED_READ,
    }),
    route('get', `${AGR}/card.png`, {
      id: 'getAgreementCard',
      summary: 'Download the private card',
      tags,
      description: cardNote,
      params: [agrId()],
      ok: binary('image/png', 'The card image.'),
      errors: PROTECTED_READ,
    }),
    route('post', `${AGR}/card-ticket`, {
      id: 'createAgreementCardTicket',
      summary: 'Issue a card ticket',
      tags,
      description: ticketNote,
      params: [agrId()],
      ok: ticket(),
      errors: PROTECTED_READ,
    }),
    route('get', `${NOT}/card.png`, {
      id: 'getNotarizationCard',
      summary: 'Download the notarization card',
      tags: ['Notarizations', ...tags],
      description: cardNote,
      params: [idOrRef()],
      ok: binary('image/png', 'The card image.'),
      errors: PROTECTED_READ,
    }),
    route('post', `${NOT}/card-ticket`, {
      id: 'createNotarizationCardTicket',
      summary: 'Issue a notarization card ticket',
      tags: ['Notarizations', ...tags],
      description: ticketNote,
      params: [idOrRef()],
      ok: ticket(),
      errors: PROTECTED_READ,
    }),
  ];
}

function notarizationRoutes(): Route[] {
  const tags = ['Notarizations'];
  const ceremonyTags = ['Notarizations', ...CEREMONY];
  return [
    route('post', `${API}/notarizations`, {
      id: 'createNotarization',
      summary: 'Notarize a content hash',
      tags,
      description:
        'Creates a notarization of a file hash, text or bare hash. Unknown properties are rejected. ' +
        '`signature_mode=auto_seal` is available to API-key callers only. Follow `next_action` and `human_step`.',
      body: body('CreateNotarizationRequest'),
      ok: json('ExternalNotarizationResponse', 201, 'The notarization record and what to do next.'),
      errors: TEAM_CREATE,
    }),
    route('get', NOT, {
      id: 'getNotarization',
      summary: 'Get a notarization',
      tags,
      params: [idOrRef(), imageRepresentation()],
      ok: record('The notarization record.'),
      errors: PROTECTED_READ,
    }),
    route('post', `${NOT}/signature-execution`, {
      id: 'startNotarizationSignatureExecution',
      summary: 'Start or resume the notarization signature execution',
      tags: ceremonyTags,
      description:
        'Equivalent to the agreement route. Method-level routes are addressed through ' +
        '`/agreements/{agr_id}/signature-execution/methods/...`.',
      params: [idOrRef()],
      ok: execution(),
      errors: PROTECTED_ACTION,
    }),
    route('get', `${NOT}/signature-execution`, {
      id: 'getNotarizationSignatureExecution',
      summary: 'Get the notarization signature execution',
      tags: ceremonyTags,
      params: [idOrRef(), imageRepresentation()],
      ok: execution(),
      errors: PROTECTED_READ,
    }),
    route('post', `${NOT}/signature-execution/finalize`, {
      id: 'finalizeNotarizationSignatureExecution',
      summary: 'Finalize the notarization signature',
      tags: ceremonyTags,
      params: [idOrRef()],
      body: optionalBody('FinalizeSignatureRequest', true),
      ok: record('The notarization record after the signature.'),
      errors: PROTECTED_ACTION,
    }),
  ];
}

export function recordRoutes(): Route[] {
  return [
    ...agreementRoutes(),
    ...ceremonyRoutes(),
    ...lifecycleRoutes(),
    ...counterRoutes(),
    ...artifactRoutes(),
    ...notarizationRoutes(),
  ];
}
