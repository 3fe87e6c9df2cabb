/** Agreements and declarations: creating, reading, editing and submitting drafts. */
import { catalog } from '../../graph/catalog/index.js';
import type { CreateAgreementInput, CreateDeclarationInput } from '../../graph/catalog/generated.js';
import { agrId, API, body, imageRepresentation, PROTECTED_ACTION, PROTECTED_READ } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { recordId, withSvg } from './params.js';
import { AGR, created, LIFECYCLE, record, TEAM_CREATE } from './record-contract.js';

const { records, lifecycle } = catalog;

export function recordRoutes(): RestRoute[] {
  const tags = ['Agreements'];
  return [
    route('post', `${API}/agreements`, {
      id: 'createAgreement',
      summary: 'Create an agreement draft',
      tags,
      description:
        'Creates a draft record (type `agreement` by default) with the caller as initiator. The response carries ' +
        'the initiator signature state; sign with the signature ceremony, then submit. With `team_id` the team owns it ' +
        "(the caller's member role needed; 404 for a team the caller is not in); a team's API key creates for its team.",
      body: body('CreateAgreementRequest'),
      ok: created('The draft record.'),
      errors: TEAM_CREATE,
      runs: bind(records.createAgreement, { input: ({ input }) => ({ input: input as unknown as CreateAgreementInput }) }),
    }),
    route('get', AGR, {
      id: 'getAgreement',
      summary: 'Get a record',
      tags,
      description: 'Any record the caller\'s identity graph may read, by identifier or AGR reference.',
      params: [agrId(), imageRepresentation()],
      ok: record(),
      errors: PROTECTED_READ,
      runs: bind(records.get, { input: (r) => ({ id: recordId(r), withSvg: withSvg(r) }) }),
    }),
    route('patch', AGR, {
      id: 'updateAgreement',
      summary: 'Update a draft',
      tags,
      description: 'Updates an eligible draft. A body change resets the initiator\'s signature work for the draft.',
      params: [agrId()],
      body: body('UpdateAgreementRequest'),
      ok: record('The updated draft.'),
      errors: PROTECTED_ACTION,
      runs: bind(records.update, { input: (r) => ({ id: recordId(r), input: r.input }) }),
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
      runs: bind(records.setReminders, { input: (r) => ({ id: recordId(r), enabled: (r.input as { enabled: boolean }).enabled }) }),
    }),
    route('post', `${AGR}/submit`, {
      id: 'submitAgreement',
      summary: 'Submit a signed draft',
      tags,
      description:
        'Moves an already signed draft to confirmation and sends the invitations to participants. 409 when the initiator ' +
        'has not finalized the current version; 422 (on `parties` or `witnesses`) when the type needs participants the draft lacks.',
      params: [agrId()],
      ok: record('The record awaiting confirmation (or sealed at once when nobody else needs to sign).'),
      errors: [...PROTECTED_ACTION, 422],
      runs: bind(lifecycle.submit, { input: (r) => ({ id: recordId(r) }) }),
    }),
    route('post', `${API}/declarations`, {
      id: 'createDeclaration',
      summary: 'Create a declaration draft',
      tags,
      description: 'Creates a single-declarant draft, optionally with witnesses.',
      body: body('CreateDeclarationRequest'),
      ok: created('The draft declaration.'),
      errors: TEAM_CREATE,
      runs: bind(records.createDeclaration, { input: ({ input }) => ({ input: input as unknown as CreateDeclarationInput }) }),
    }),
  ];
}
