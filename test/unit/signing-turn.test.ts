import { availableActions, participantActions, type ActionContext, type ParticipantState } from '../../src/domain/records/lifecycle.js';
import { signersDue, turnClosed, type TurnParticipant } from '../../src/domain/records/signing-turn.js';

const at = new Date('2026-12-05T10:00:00Z');
const row = (id: string, role: ParticipantState['role'], state: Partial<TurnParticipant> = {}): TurnParticipant => ({
  id,
  role,
  displayName: id[0]!.toUpperCase() + id.slice(1),
  declinedAt: null,
  waivedAt: null,
  removedAt: null,
  confirmedVersion: null,
  ...state,
});

/** Ann initiates (and signed version 1); Bob and Cleo are parties in that order; Wes and Will witness. */
function rows(overrides: Record<string, Partial<TurnParticipant>> = {}): TurnParticipant[] {
  const base = [row('ann', 'initiator', { confirmedVersion: 1 }), row('bob', 'party'), row('cleo', 'party'), row('wes', 'witness'), row('will', 'witness')];
  return base.map((p) => ({ ...p, ...overrides[p.id] }));
}
const ids = (participants: readonly ParticipantState[]) => participants.map((p) => p.id);

describe('Whose turn it is to sign', () => {
  it.each([
    ['nobody signed yet', {}, 1, ['bob']],
    ['Bob signed', { bob: { confirmedVersion: 1 } }, 1, ['cleo']],
    ['both parties signed: every witness at once', { bob: { confirmedVersion: 1 }, cleo: { confirmedVersion: 1 } }, 1, ['wes', 'will']],
    ['Bob declined: the turn waits for the initiator', { bob: { declinedAt: at } }, 1, []],
    ['Bob declined and was waived: Cleo', { bob: { declinedAt: at, waivedAt: at } }, 1, ['cleo']],
    ['Bob signed an older version (a counter was accepted): Bob again', { bob: { confirmedVersion: 1 } }, 2, ['bob']],
    ['a witness declined after the parties signed: the others', { bob: { confirmedVersion: 1 }, cleo: { confirmedVersion: 1 }, wes: { declinedAt: at } }, 1, ['will']],
  ] as [string, Record<string, Partial<TurnParticipant>>, number, string[]][])('sequential, %s', (_case, overrides, version, expected) => {
    expect(ids(signersDue('sequential', rows(overrides), version))).toEqual(expected);
  });

  it('parallel: everyone but the initiator who has not signed, as before', () => {
    expect(ids(signersDue('parallel', rows({ cleo: { confirmedVersion: 1 } }), 1))).toEqual(['bob', 'wes', 'will']);
    expect(turnClosed('parallel', rows(), 'cleo', 1)).toBeNull();
  });

  it('refuses a party or witness whose turn has not come, naming whose turn it is', () => {
    expect(turnClosed('sequential', rows(), 'cleo', 1)).toBe("Not your turn yet: the parties sign one at a time in list order (waiting for Bob's signature)");
    expect(turnClosed('sequential', rows(), 'wes', 1)).toBe("Not your turn yet: witnesses sign once every party has signed (waiting for Bob's signature)");
    expect(turnClosed('sequential', rows({ bob: { declinedAt: at } }), 'cleo', 1)).toContain("Bob's decline waits for the initiator");
  });

  it('never holds back the initiator, the signer whose turn it is, or someone with nothing left to sign', () => {
    expect(turnClosed('sequential', rows({ ann: { confirmedVersion: 1 } }), 'ann', 2)).toBeNull();
    expect(turnClosed('sequential', rows(), 'bob', 1)).toBeNull();
    expect(turnClosed('sequential', rows({ bob: { confirmedVersion: 1 }, cleo: { confirmedVersion: 1 } }), 'cleo', 1)).toBeNull();
  });
});

describe('The actions a sequential record offers', () => {
  const context = (reader: string, participants = rows()): ActionContext => ({
    type: 'witnessed_agreement',
    status: 'pending_confirmation',
    currentVersion: 1,
    participants,
    isInitiator: reader === 'ann',
    managesAsInitiator: reader === 'ann',
    readerRows: new Set([reader]),
    counterProposerId: null,
    signingOrder: 'sequential',
  });

  it('offers sign only to the party whose turn it is; declines and counters as today', () => {
    expect(availableActions(context('bob'))).toEqual(['sign', 'decline', 'propose_counter']);
    expect(availableActions(context('cleo'))).toEqual(['decline', 'propose_counter']);
    expect(availableActions(context('wes'))).toEqual(['decline']);
    expect(availableActions(context('cleo', rows({ bob: { confirmedVersion: 1 } })))).toEqual(['sign', 'decline', 'propose_counter']);
  });

  it('offers the initiator a resend only to the signer whose turn it is', () => {
    const participants = rows();
    expect(participantActions(context('ann'), participants[1]!)).toEqual(['resend_invitation']);
    expect(participantActions(context('ann'), participants[2]!)).toEqual([]);
    expect(participantActions(context('ann'), participants[3]!)).toEqual([]);
  });
});
