import type { RecordStatus, RecordType, SignerStateFragment } from '../graphql/generated';

export const TYPE_LABELS: Record<RecordType, string> = {
  agreement: 'Agreement',
  declaration: 'Declaration',
  witnessed_agreement: 'Witnessed agreement',
  notarization: 'Notarization',
};

export const STATUS_LABELS: Record<RecordStatus, string> = {
  draft: 'Draft',
  pending_confirmation: 'Awaiting signatures',
  counter_under_review: 'Counter-proposal under review',
  sealed: 'Sealed',
  superseded: 'Superseded',
  cancelled_draft: 'Cancelled draft',
  expired: 'Expired',
  declined: 'Declined',
  rescinded: 'Rescinded',
};

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Participants whose signature still counts: not declined, not waived. */
function activeSigners(parties: readonly SignerStateFragment[]): SignerStateFragment[] {
  return parties.filter((party) => !party.declinedAt && !party.waivedAt);
}

export function signatureProgress(parties: readonly SignerStateFragment[]): { signed: number; total: number } {
  const active = activeSigners(parties);
  return { signed: active.filter((party) => party.signatureState.status === 'finalized').length, total: active.length };
}

export function signerLabel(party: SignerStateFragment): string {
  if (party.waivedAt) return 'Waived';
  if (party.declinedAt) return 'Declined';
  switch (party.signatureState.status) {
    case 'finalized':
      return 'Signed';
    case 'in_progress':
      return `Signing (${party.signatureState.satisfiedMethodCount} method${party.signatureState.satisfiedMethodCount === 1 ? '' : 's'} done)`;
    case 'not_started':
      return 'Not signed yet';
  }
}

export const ROLE_LABELS = { initiator: 'Initiator', party: 'Party', witness: 'Witness' } as const;
