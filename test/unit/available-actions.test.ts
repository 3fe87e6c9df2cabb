import type { RecordStatus, RecordType } from '../../src/domain/records/entities.js';
import { availableActions, participantActions, type ActionContext, type ParticipantState } from '../../src/domain/records/lifecycle.js';

const at = new Date('2026-11-26T12:00:00Z');
const row = (id: string, role: ParticipantState['role'], state: Partial<ParticipantState> = {}): ParticipantState => ({
  id,
  role,
  declinedAt: null,
  waivedAt: null,
  removedAt: null,
  confirmedVersion: null,
  ...state,
});

/** Ann initiates; Bob is a party, Cleo a party who proposed the pending counter, Wes a witness. */
function context(status: RecordStatus, reader: 'ann' | 'bob' | 'cleo' | 'wes' | 'stranger' | 'admin', options: { type?: RecordType; annSigned?: boolean; withoutWitness?: boolean; counter?: boolean } = {}): ActionContext {
  const participants = [row('ann', 'initiator', { confirmedVersion: options.annSigned ? 1 : null }), row('bob', 'party'), row('cleo', 'party'), ...(options.withoutWitness ? [] : [row('wes', 'witness')])];
  return {
    type: options.type ?? 'witnessed_agreement',
    status,
    currentVersion: 1,
    participants,
    isInitiator: reader === 'ann',
    // An admin of the record's team manages it as its initiator may, and signs nothing for them.
    managesAsInitiator: reader === 'ann' || reader === 'admin',
    readerRows: new Set(reader === 'stranger' || reader === 'admin' ? [] : [reader]),
    counterProposerId: options.counter ? 'cleo' : null,
  };
}

describe('What a reader may do now, from the lifecycle table', () => {
  it.each([
    ['draft', 'ann', {}, ['edit', 'cancel_draft', 'sign']],
    ['draft', 'ann', { annSigned: true }, ['edit', 'submit', 'cancel_draft']],
    // The submit row's guard: a witnessed agreement without a witness is not offered submit.
    ['draft', 'ann', { annSigned: true, withoutWitness: true }, ['edit', 'cancel_draft']],
    ['draft', 'admin', {}, ['edit', 'cancel_draft']],
    ['draft', 'admin', { annSigned: true }, ['edit', 'submit', 'cancel_draft']],
    ['pending_confirmation', 'admin', { annSigned: true }, ['rescind']],
    ['draft', 'bob', {}, []],
    ['pending_confirmation', 'ann', { annSigned: true }, ['rescind']],
    ['pending_confirmation', 'bob', {}, ['sign', 'decline', 'propose_counter']],
    ['pending_confirmation', 'wes', {}, ['sign', 'decline']],
    ['pending_confirmation', 'stranger', {}, []],
    ['pending_confirmation', 'bob', { type: 'notarization' }, ['sign', 'decline']],
    ['counter_under_review', 'ann', { annSigned: true, counter: true }, ['resolve_counter', 'rescind']],
    ['counter_under_review', 'cleo', { counter: true }, ['decline', 'withdraw_counter']],
    ['counter_under_review', 'bob', { counter: true }, ['decline']],
    ['counter_under_review', 'wes', { counter: true }, ['decline']],
    ['sealed', 'ann', { annSigned: true }, ['amend', 'cancel']],
    ['sealed', 'bob', {}, ['amend', 'cancel']],
    ['sealed', 'wes', {}, []],
    ['expired', 'bob', {}, []],
    ['rescinded', 'ann', {}, []],
  ] as const)('%s, read by %s %j: %j', (status, reader, options, expected) => {
    expect(availableActions(context(status, reader, options))).toEqual(expected);
  });

  it('offers signing only to participants who have not signed this version, declined or been waived', () => {
    const signed = { ...context('pending_confirmation', 'bob'), participants: [row('ann', 'initiator', { confirmedVersion: 1 }), row('bob', 'party', { confirmedVersion: 1 })] };
    expect(availableActions(signed)).toEqual(['propose_counter']);
    const declined = { ...context('pending_confirmation', 'bob'), participants: [row('ann', 'initiator'), row('bob', 'party', { declinedAt: at })] };
    expect(availableActions(declined)).toEqual([]);
  });

  it.each([
    ['a declined party of an agreement', row('bob', 'party', { declinedAt: at }), 'witnessed_agreement', ['complete_without']],
    ['a declined witness', row('wes', 'witness', { declinedAt: at }), 'witnessed_agreement', ['waive_witness', 'replace_witness']],
    ['a removed witness', row('wes', 'witness', { removedAt: at }), 'witnessed_agreement', ['waive_witness', 'replace_witness']],
    ['a waived witness', row('wes', 'witness', { declinedAt: at, waivedAt: at }), 'witnessed_agreement', []],
    ['an active party who has not signed', row('bob', 'party'), 'witnessed_agreement', ['resend_invitation']],
    ['an active party who signed', row('bob', 'party', { confirmedVersion: 1 }), 'witnessed_agreement', []],
    ['a declined co-notarizer', row('bob', 'party', { declinedAt: at }), 'notarization', ['waive_co_notarizer']],
  ] as const)("the initiator's moves on %s", (_what, participant, type, expected) => {
    expect(participantActions(context('pending_confirmation', 'ann', { type, annSigned: true }), participant)).toEqual(expected);
  });

  it('offers participant moves to the initiator only, and only while the record is pending', () => {
    const declined = row('bob', 'party', { declinedAt: at });
    expect(participantActions(context('pending_confirmation', 'cleo'), declined)).toEqual([]);
    expect(participantActions(context('sealed', 'ann'), declined)).toEqual([]);
    expect(participantActions(context('counter_under_review', 'ann', { counter: true }), declined)).toEqual(['complete_without']);
  });
});
