import { randomUUID } from 'node:crypto';
import {
  ACTION_TRIGGERS,
  declineOutcome,
  findTransition,
  PARTICIPANT_MOVES,
  RECORD_ACTIONS,
  signingClosed,
  LIFECYCLE_TRIGGERS,
  TRANSITIONS,
  type Actor,
  type LifecycleTrigger,
  type RecordAction,
} from '../../src/domain/records/lifecycle.js';
import { turnClosed } from '../../src/domain/records/signing-turn.js';
import { CounterProposal, Participant, RECORD_STATUSES, SignedRecord, type RecordStatus } from '../../src/domain/records/entities.js';
import { DomainError, type DomainErrorCode } from '../../src/domain/shared/errors.js';
import { openDomain, type Domain, type Person } from '../support/domain.js';
import { draft, lapse, newCast, NEW_TERMS, recordAt, sign, STAGE_NAMES, stageStatus, statusOf, type Cast, type Stage, type Staged } from '../support/record-stages.js';

/**
 * The lifecycle table (records/lifecycle.ts) against the services, on the real database: for every
 * stage a record reaches, every move a reader can ask for, and every kind of reader, the service
 * allows the move exactly when the table says so and lands where the row says, refuses it with the
 * error the services give (`not_found` to someone outside the record, `forbidden` to someone the
 * row's actor is not, `invalid_transition` where no row leads, or the row's own refusal), and offers
 * (`availableActions`) exactly the moves it allows. The expectations are read from the table, so a new
 * row is tested as soon as it is written; a new trigger or action does not type-check here until it
 * says how it is asked for.
 */

type Role = 'initiator' | 'party' | 'witness' | 'team admin' | 'stranger';
const ROLES: readonly Role[] = ['initiator', 'party', 'witness', 'team admin', 'stranger'];
const personOf = (cast: Cast, role: Role): Person =>
  ({ initiator: cast.initiator, party: cast.party, witness: cast.witness, 'team admin': cast.admin, stranger: cast.stranger })[role];

/** What asking for a move comes to: the record's status after it, or the refusal's code. */
type Outcome = { to: RecordStatus } | { refused: DomainErrorCode };

/** A move a reader asks for: a trigger of the table, or signing (the signing window's). */
type Move = LifecycleTrigger | 'sign';

/**
 * How a reader asks for each record action, and which move that is on a record in `status`: `POST
 * …/cancel` cancels a draft in place and drafts the mutual cancellation of a sealed record.
 */
type Call = Exclude<RecordAction, 'cancel_draft'>;
const CALLS: Record<Call, { move: (status: RecordStatus) => Move; run: (d: Domain, who: Person, staged: Staged) => Promise<unknown> }> = {
  edit: { move: () => ACTION_TRIGGERS.edit, run: (d, who, s) => d.services.records.update(who.principal, s.id, { title: 'Garden sharing, edited' }) },
  submit: { move: () => ACTION_TRIGGERS.submit, run: (d, who, s) => d.services.lifecycle.submit(who.principal, s.id) },
  cancel: {
    move: (status) => (status === 'draft' ? ACTION_TRIGGERS.cancel_draft : ACTION_TRIGGERS.cancel),
    run: (d, who, s) => d.services.amendments.cancel(who.principal, s.id, {}),
  },
  // Signing commits to something from its first method step: that is the move asked here.
  sign: { move: () => 'sign', run: (d, who, s) => d.services.ceremonies.startMethod(who.principal, s.id, 'email_otp', {}) },
  decline: { move: () => 'decline', run: (d, who, s) => d.services.lifecycle.decline(who.principal, s.id, 'Not for me') },
  propose_counter: { move: () => ACTION_TRIGGERS.propose_counter, run: (d, who, s) => d.services.counters.submit(who.principal, s.id, { proposedBody: NEW_TERMS }) },
  resolve_counter: {
    move: () => ACTION_TRIGGERS.resolve_counter,
    run: (d, who, s) => d.services.counters.resolve(who.principal, s.id, s.counterId ?? randomUUID(), { decision: 'reject' }),
  },
  withdraw_counter: { move: () => ACTION_TRIGGERS.withdraw_counter, run: (d, who, s) => d.services.counters.withdraw(who.principal, s.id, s.counterId ?? randomUUID()) },
  rescind: { move: () => ACTION_TRIGGERS.rescind, run: (d, who, s) => d.services.lifecycle.rescind(who.principal, s.id) },
  amend: { move: () => ACTION_TRIGGERS.amend, run: (d, who, s) => d.services.amendments.amend(who.principal, s.id, { body: NEW_TERMS }) },
};
const CALL_NAMES = Object.keys(CALLS) as Call[];
const callOf = (action: RecordAction): Call => (action === 'cancel_draft' ? 'cancel' : action);

/** The moves the service makes on its own, and how a test brings each about. */
const SYSTEM_TRIGGERS = ['complete_signatures', 'lapse', 'successor_sealed'] as const satisfies readonly LifecycleTrigger[];

/** Who makes each trigger's move: one actor per trigger, whatever status it is made from. */
const ACTOR = new Map<LifecycleTrigger, Actor>(TRANSITIONS.map((row) => [row.trigger, row.actor]));

/** A staged record as the expectations read it: its stored rows. */
type Situation = { staged: Staged; record: SignedRecord; participants: Participant[]; counterProposerId: string | null };

async function situationOf(d: Domain, staged: Staged): Promise<Situation> {
  const em = d.orm.em.fork();
  const record = await em.findOneOrFail(SignedRecord, staged.id);
  const participants = await em.find(Participant, { record: staged.id }, { orderBy: { position: 'asc' } });
  const counter = staged.counterId ? await em.findOneOrFail(CounterProposal, staged.counterId) : null;
  return { staged, record, participants, counterProposerId: counter?.proposedBy.id ?? null };
}

/** The role's own participant row (a removed one is no longer theirs). */
function rowOf(situation: Situation, cast: Cast, role: Role): Participant | undefined {
  if (role === 'initiator') return situation.participants.find((p) => p.role === 'initiator');
  if (role === 'party' || role === 'witness') return situation.participants.find((p) => p.contactPointValue === personOf(cast, role).email && !p.removedAt);
  return undefined;
}

const active = (row: Participant | undefined) => row !== undefined && !row.declinedAt && !row.waivedAt && !row.removedAt;

/** Whether `role` is the row's actor on this record (docs/records.md: who is who). */
function holds(actor: Actor, role: Role, row: Participant | undefined, situation: Situation): boolean {
  switch (actor) {
    case 'initiator':
      // On a team's record, an admin of the team manages it as its initiator may.
      return role === 'initiator' || role === 'team admin';
    case 'signatory':
      return role === 'initiator' || role === 'team admin' || (role === 'party' && row !== undefined);
    case 'participant':
      return (role === 'party' || role === 'witness') && active(row);
    case 'party':
      return role === 'party' && active(row);
    case 'proposer':
      return row !== undefined && row.id === situation.counterProposerId;
    case 'system':
      return false;
  }
}

/**
 * What the table says of `role` asking for `move` now, in the order every service checks: the
 * record is readable, the caller is who makes the move, the move exists from here, its guard holds.
 */
function expected(move: Move, role: Role, situation: Situation, cast: Cast): Outcome {
  const { record, participants } = situation;
  const status = record.status;
  if (role === 'stranger') return { refused: 'not_found' };
  const row = rowOf(situation, cast, role);
  if (move === 'sign') {
    // The signer is the initiator's row, or the caller's own active one; a team's admin signs nothing of it.
    if (row === undefined || (role !== 'initiator' && !active(row))) return { refused: 'forbidden' };
    if (signingClosed(status, row.role) ?? turnClosed(record.signingOrder, participants, row.id, record.currentVersion)) return { refused: 'invalid_transition' };
    if (row.confirmedVersion === record.currentVersion) return { refused: 'conflict' };
    return { to: status };
  }
  const actor = ACTOR.get(move)!;
  // A counter's proposer is known only from the counter: without one, the counter is what is missing.
  if (actor === 'proposer' && situation.counterProposerId === null) return { refused: 'not_found' };
  if (!holds(actor, role, row, situation)) return { refused: 'forbidden' };
  if (move === 'resolve_counter' && situation.counterProposerId === null) return { refused: 'not_found' };
  if (move === 'decline') {
    // A decline is a participant's move (PARTICIPANT_MOVES); it moves the record when it ends it.
    const rule = PARTICIPANT_MOVES.find((r) => r.move === 'decline')!;
    if (!rule.statuses.includes(status)) return { refused: 'invalid_transition' };
    if (!rule.applies(row!, record.currentVersion)) return { refused: 'conflict' };
    const ends = declineOutcome(record.type, participants, row!.id, record.currentVersion).endsRecord;
    return { to: ends ? findTransition(status, 'decline', record.type)!.to : status };
  }
  const transition = findTransition(status, move, record.type);
  // A second counter while one is under review is its own refusal: the one active counter is the conflict.
  if (!transition) return { refused: move === 'submit_counter' && status === 'counter_under_review' ? 'counter_active' : 'invalid_transition' };
  const refusal = transition.refusal?.({ type: record.type, currentVersion: record.currentVersion, participants });
  if (refusal) return { refused: refusal.code };
  return { to: transition.to };
}

/** What the service made of the call. */
async function outcomeOf(d: Domain, staged: Staged, call: Promise<unknown>): Promise<Outcome & { message?: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { refused: error.code, message: error.message };
  }
  return { to: await statusOf(d, staged.id) };
}

describe('The lifecycle table, move by move, at the service level', () => {
  let d: Domain;
  let cast: Cast;
  /**
   * One record per stage, read once, for the refusals (a refused move changes nothing, which each case
   * checks); each allowed move gets a record of its own.
   */
  const shared = new Map<Stage, Promise<Situation>>();
  const sharedAt = (stage: Stage) => {
    if (!shared.has(stage)) shared.set(stage, recordAt(d, cast, stage).then((staged) => situationOf(d, staged)));
    return shared.get(stage)!;
  };

  beforeAll(async () => {
    d = await openDomain();
    cast = await newCast(d);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('has a stage for every status, a way to ask for every trigger, and one actor per trigger', () => {
    expect(new Set(STAGE_NAMES.map(stageStatus))).toEqual(new Set(RECORD_STATUSES));
    const asked = new Set<Move>(STAGE_NAMES.flatMap((stage) => CALL_NAMES.map((call) => CALLS[call].move(stageStatus(stage)))));
    for (const trigger of LIFECYCLE_TRIGGERS) expect([trigger, asked.has(trigger) || (SYSTEM_TRIGGERS as readonly string[]).includes(trigger)]).toEqual([trigger, true]);
    for (const row of TRANSITIONS) expect([row.trigger, row.actor]).toEqual([row.trigger, ACTOR.get(row.trigger)]);
    for (const trigger of SYSTEM_TRIGGERS) expect(ACTOR.get(trigger)).toBe('system');
  });

  describe.each(STAGE_NAMES)('a witnessed team record at stage %s', (stage) => {
    const cases = CALL_NAMES.flatMap((call) => ROLES.map((role) => [call, role] as const));

    it.each(cases)('%s asked by the %s: as the table says', async (call, role) => {
      const situation = await sharedAt(stage);
      const want = expected(CALLS[call].move(situation.record.status), role, situation, cast);
      const staged = 'to' in want ? await recordAt(d, cast, stage) : situation.staged;
      const got = await outcomeOf(d, staged, CALLS[call].run(d, personOf(cast, role), staged));
      expect(got).toMatchObject(want);
      // A refused move leaves the record as it was.
      if ('refused' in want) {
        const status = await statusOf(d, staged.id);
        // A move refused by the table that the service made anyway spoils the shared record: the next case makes another.
        if (status !== situation.record.status) shared.delete(stage);
        expect(status).toBe(situation.record.status);
      }
    });

    it.each(ROLES)('offers the %s exactly the moves the service allows them', async (role) => {
      const situation = await sharedAt(stage);
      const reading = d.services.records.get(personOf(cast, role).principal, situation.staged.id);
      if (role === 'stranger') {
        await expect(reading).rejects.toMatchObject({ code: 'not_found' });
        return;
      }
      const allowed = RECORD_ACTIONS.filter((action) => {
        const move = action === 'cancel_draft' || action === 'cancel' ? ACTION_TRIGGERS[action] : CALLS[callOf(action)].move(situation.record.status);
        return 'to' in expected(move, role, situation, cast);
      });
      expect((await reading).availableActions).toEqual(allowed);
    });
  });

  describe('around the table', () => {
    it('seals a declaration without witnesses at its submission: nobody is left to sign', async () => {
      const id = await draft(d, cast.initiator, { type: 'declaration' });
      await sign(d, cast.initiator, id);
      await d.services.lifecycle.submit(cast.initiator.principal, id);
      expect(await statusOf(d, id)).toBe('sealed');
    });

    it('lets exactly one of two racing submits win, and invites once', async () => {
      const id = await draft(d, cast.initiator, { parties: [cast.party] });
      await sign(d, cast.initiator, id);
      const outcomes = await Promise.allSettled([d.services.lifecycle.submit(cast.initiator.principal, id), d.services.lifecycle.submit(cast.initiator.principal, id)]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'invalid_transition' } });
      const { agrReference } = await d.services.records.get(cast.initiator.principal, id);
      expect((await d.deliverMail()).filter((m) => m.to === cast.party.email && m.text.includes(agrReference))).toHaveLength(1);
    });
  });

  describe('the moves the service makes on its own', () => {
    // As above, a record where the move happens is one of its own; where it does not, the shared one.
    it('lapses exactly the statuses the table lapses, once their lapse has passed', async () => {
      const staged: Staged[] = [];
      for (const stage of STAGE_NAMES) {
        const { staged: one } = await sharedAt(stage);
        staged.push(findTransition(one.status, 'lapse') ? await recordAt(d, cast, stage) : one);
      }
      await lapse(d, ...staged.map((s) => s.id));
      const after = await Promise.all(staged.map(async (s) => [s.stage, await statusOf(d, s.id)]));
      expect(after).toEqual(staged.map((s) => [s.stage, findTransition(s.status, 'lapse')?.to ?? s.status]));
    });

    it('seals on the last required signature exactly where the table completes signatures', async () => {
      for (const stage of STAGE_NAMES) {
        const situation = await sharedAt(stage);
        const signers = (['initiator', 'party', 'witness'] as const).filter((role) => 'to' in expected('sign', role, situation, cast));
        const staged = signers.length > 0 ? await recordAt(d, cast, stage) : situation.staged;
        // Everyone who may sign now does.
        for (const role of signers) await sign(d, personOf(cast, role), staged.id);
        const row = findTransition(staged.status, 'complete_signatures');
        expect([stage, await statusOf(d, staged.id)]).toEqual([stage, row?.to ?? staged.status]);
      }
    });

    it('supersedes a record when its amendment seals, from exactly the statuses the table says', async () => {
      for (const stage of STAGE_NAMES) {
        const situation = await sharedAt(stage);
        const row = findTransition(situation.record.status, 'successor_sealed');
        if (!('to' in expected('amend', 'initiator', situation, cast))) {
          // No amendment, so no successor can seal: the table promises nothing the service cannot reach.
          expect([stage, row]).toEqual([stage, undefined]);
          continue;
        }
        const staged = await recordAt(d, cast, stage);
        const amendment = await d.services.amendments.amend(cast.initiator.principal, staged.id, { body: NEW_TERMS });
        await sign(d, cast.initiator, amendment);
        await d.services.lifecycle.submit(cast.initiator.principal, amendment);
        await sign(d, cast.party, amendment);
        await sign(d, cast.witness, amendment);
        expect([stage, await statusOf(d, staged.id)]).toEqual([stage, row?.to ?? staged.status]);
      }
    });
  });
});
