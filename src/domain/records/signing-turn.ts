import type { SigningOrder } from '../vocabulary.js';
import type { ParticipantRole } from './entities.js';

/**
 * Whose turn it is to sign, by the record's signing order. Pure rules over the participant rows,
 * which come in list order (participant `position`): the ceremony's refusal, the invitations a
 * change writes and the record view's `available_actions` all ask these, so they never disagree.
 */

/** A participant as the lifecycle rules and the turn rules see it. */
export type ParticipantState = {
  id: string;
  role: ParticipantRole;
  declinedAt: Date | null;
  waivedAt: Date | null;
  removedAt?: Date | null;
  confirmedVersion: number | null;
  /** Words a refusal that names them (whose turn it is). */
  displayName?: string | null;
};

/** A participant as the turn needs it; the name only words a refusal. */
export type TurnParticipant = ParticipantState & { displayName?: string | null };

const active = (p: ParticipantState) => !p.declinedAt && !p.waivedAt && !p.removedAt;
/** Still owes a signature on `version`: nobody went on without them. */
const owes = (p: ParticipantState, version: number) => !p.removedAt && !p.waivedAt && p.confirmedVersion !== version;

/**
 * The participants other than the initiator whose turn it is to sign `version` (the initiator signs
 * before submission and is never kept waiting). `parallel`: every active one who has not signed.
 * `sequential`: the first party in list order who still owes a signature; a party who declined holds
 * the turn (nobody is invited) until the initiator goes on without them or rescinds, as a decline
 * does today; once no party owes one, every active witness who has not signed.
 */
export function signersDue<P extends ParticipantState>(order: SigningOrder, participants: readonly P[], version: number): P[] {
  const others = participants.filter((p) => p.role !== 'initiator');
  if (order === 'parallel') return others.filter((p) => active(p) && p.confirmedVersion !== version);
  const party = others.find((p) => p.role === 'party' && owes(p, version));
  if (party) return active(party) ? [party] : [];
  return others.filter((p) => p.role === 'witness' && active(p) && p.confirmedVersion !== version);
}

/**
 * Why the signing order holds `participantId` back from signing `version` now, naming whose turn it
 * is; null when it does not (parallel order, the initiator, their turn, or nothing left to sign).
 */
export function turnClosed(order: SigningOrder, participants: readonly TurnParticipant[], participantId: string, version: number): string | null {
  const participant = participants.find((p) => p.id === participantId);
  if (order === 'parallel' || !participant || participant.role === 'initiator' || !active(participant) || participant.confirmedVersion === version) return null;
  if (signersDue(order, participants, version).some((p) => p.id === participantId)) return null;
  const holder = participants.find((p) => p.role === 'party' && owes(p, version));
  const name = holder?.displayName ? `${holder.displayName}'s` : "an earlier party's";
  const why = holder?.declinedAt ? `${name} decline waits for the initiator (go on without them, or rescind)` : `waiting for ${name} signature`;
  return participant.role === 'witness'
    ? `Not your turn yet: witnesses sign once every party has signed (${why})`
    : `Not your turn yet: the parties sign one at a time in list order (${why})`;
}
