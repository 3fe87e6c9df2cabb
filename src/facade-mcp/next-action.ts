import type { RecordFieldsFragment, SignatureExecutionFieldsFragment } from '../graph/catalog/generated.js';
import type { NextAction } from './views.js';

export type Guidance = { nextAction: NextAction | null; humanStep: string | null };

const call = (tool: string, args: Record<string, unknown>, description: string): NextAction => ({ tool, arguments: args, description });

/**
 * The way on from a record's state for this caller, for a client that knows nothing else: the moves
 * the service offers now (`available_actions`, from the lifecycle table) first (sign, submit, resolve
 * a counter), then what the status leaves (wait, the card of a sealed record, its successor).
 */
export function recordGuidance(record: RecordFieldsFragment): Guidance {
  const ref = { agr_reference: record.agrReference };
  const offered = new Set(record.availableActions);
  if (offered.has('sign')) {
    return {
      nextAction: call('start_or_resume_signature_execution', ref, 'Start (or resume) the caller\'s signature on this version.'),
      humanStep: `The human must read the exact text of ${record.agrReference} (version ${record.currentVersion}) and decide to sign it; signing needs ${record.requiredSignatureMethodCount} signature method(s) they complete themselves.`,
    };
  }
  if (offered.has('submit')) {
    return {
      nextAction: call('preview_draft_change', { ...ref, action: 'submit' }, 'Preview submitting the signed draft to the other participants, then confirm it.'),
      humanStep: `Ask the human whether to send ${record.agrReference} to the other participants now.`,
    };
  }
  const counter = record.activeCounter?.status === 'pending' ? record.activeCounter : null;
  if (offered.has('resolve_counter') && counter) {
    return {
      nextAction: call('preview_counter_resolution', { ...ref, counter_id: counter.id, decision: 'accept' }, 'Preview resolving the pending counter-proposal (accept, partially_accept or reject).'),
      humanStep: 'The initiator must read the counter-proposal and decide how to resolve it.',
    };
  }
  if (offered.has('edit')) {
    return {
      nextAction: call('get_agreement', ref, 'The draft is signed but cannot be submitted yet: add the participants its type needs (preview_draft_change with action update).'),
      humanStep: `Ask the human who else takes part in ${record.agrReference}.`,
    };
  }
  switch (record.status) {
    case 'draft':
    case 'pending_confirmation':
    case 'counter_under_review': {
      const waiting = record.parties.filter((party) => party.role !== 'initiator' && !party.declinedAt && !party.waivedAt && party.confirmedVersion !== record.currentVersion);
      return {
        nextAction: call('get_agreement', ref, 'Check the record again later; it seals when every participant has signed.'),
        humanStep: counter
          ? 'A counter-proposal is under review: signing resumes once the initiator resolves it.'
          : waiting.length
            ? `Waiting for ${waiting.map((party) => party.displayName ?? 'a participant').join(', ')} to sign with their invitation (a participant signs with start_or_resume_signature_execution under their own credentials).`
            : 'Waiting for the record to seal.',
      };
    }
    case 'sealed':
      return {
        nextAction: call('get_agreement_card', ref, 'Get the share card of the sealed record (a single-use URL by default).'),
        humanStep: null,
      };
    case 'superseded':
      return {
        nextAction: record.supersededByAgrId ? call('get_agreement', { agr_reference: record.supersededByAgrId }, 'Read the record that supersedes this one.') : null,
        humanStep: null,
      };
    case 'cancelled_draft':
    case 'declined':
    case 'expired':
    case 'rescinded':
      return { nextAction: null, humanStep: null };
  }
}

/** The way on inside a signature execution: start a method, hand the human its step, submit, finalize. */
export function executionGuidance(reference: string, execution: SignatureExecutionFieldsFragment, acknowledgementNeeded: boolean, secretInput: 'url' | 'argument' = 'argument'): Guidance {
  const ref = { agr_reference: reference };
  if (execution.finalizedAt) {
    return { nextAction: call('get_agreement', ref, 'The signature is finalized; read the record for what comes next.'), humanStep: null };
  }
  if (execution.canFinalize) {
    return {
      nextAction: call(
        'finalize_signature_execution',
        acknowledgementNeeded ? { ...ref, acknowledge_public_verified_parties: true } : ref,
        'Finalize the signature once the human confirmed they intend to sign this version.',
      ),
      humanStep: `Confirm with the human that they intend to sign version ${execution.recordVersion}${acknowledgementNeeded ? ' and accept that their verified details are published on chain' : ''}; then finalize.`,
    };
  }
  const pending = execution.methods.find((method) => method.status === 'pending');
  if (pending && secretInput === 'url' && (pending.methodType === 'email_otp' || pending.methodType === 'webauthn_passkey')) {
    return {
      nextAction: call('submit_signature_method_input', { ...ref, method_type: pending.methodType }, 'Call it as it is: it answers a page of the service where the human gives this input; call it again once they are done.'),
      humanStep: `The human ${pending.methodType === 'email_otp' ? 'enters the signature code mailed to them' : 'confirms with their passkey'} on the service's page that your client opens. Never ask them for the code or to paste it here.`,
    };
  }
  if (pending) {
    const input = pending.methodType === 'email_otp' ? { code: '<six-digit code from the human>' } : pending.methodType === 'webauthn_passkey' ? { credential: '<authenticator response>' } : { url: '<public proof URL from the human>' };
    return {
      nextAction: call('submit_signature_method_input', { ...ref, method_type: pending.methodType, ...input }, 'Submit what the human provides for this method.'),
      humanStep: pending.step?.prompt ?? 'The human completes this signature method and gives you the value to submit.',
    };
  }
  const satisfied = new Set(execution.methods.filter((method) => method.status === 'satisfied').map((method) => method.methodType));
  const next = execution.methods.find((method) => !satisfied.has(method.methodType) && method.status === 'available' && method.methodType !== 'api_key')?.methodType ?? 'email_otp';
  return {
    nextAction: call('start_signature_method', { ...ref, method_type: next }, `Start a signature method (${execution.satisfiedMethodCount} of ${execution.requiredSignatureMethodCount} satisfied).`),
    humanStep: `The human proves intent to sign with ${execution.requiredSignatureMethodCount - execution.satisfiedMethodCount} more distinct signature method(s).`,
  };
}
