import { randomUUID } from 'node:crypto';
import { PARTICIPANT_MOVES, type ParticipantMove } from '../../src/domain/records/lifecycle.js';
import type { RecordStatus, RecordType } from '../../src/domain/records/entities.js';
import type { RecordView } from '../../src/domain/records/record-view.js';
import { DomainError, type DomainErrorCode } from '../../src/domain/shared/errors.js';
import { openDomain, type Domain, type Person } from '../support/domain.js';
import { draft, lapse, NEW_TERMS, sign, statusOf, submitted, type Shape } from '../support/record-stages.js';

/**
 * The participant-level moves (PARTICIPANT_MOVES in records/lifecycle.ts) against LifecycleService:
 * in which statuses and records each is possible, who makes it and on whom, read from the table; then
 * what each leads to (going on without someone, waiving, replacing, resending).
 */

/** Three record shapes; in each, Carol is the participant the moves are about and Bob another signer. */
type Kind = 'agreement' | 'witnessed' | 'notarization';
const TYPE_OF: Record<Kind, RecordType> = { agreement: 'agreement', witnessed: 'witnessed_agreement', notarization: 'notarization' };

/** The statuses the moves are tried in: the table's own and the others a record reaches cheaply. */
const STATUSES: readonly RecordStatus[] = ['draft', 'pending_confirmation', 'counter_under_review', 'sealed', 'rescinded', 'expired'];

type Outcome = { ok: true } | { refused: DomainErrorCode };

describe('Participant moves (LifecycleService)', () => {
  let d: Domain;
  let alice: Person;
  let bob: Person;
  let carol: Person;
  let dave: Person;
  let tess: Person;
  let mallory: Person;
  let teamId: string;

  beforeAll(async () => {
    d = await openDomain();
    [alice, bob, carol, dave, tess, mallory] = (await Promise.all(['Alice', 'Bob', 'Carol', 'Dave', 'Tess', 'Mallory'].map((name) => d.person(name)))) as [Person, Person, Person, Person, Person, Person];
    teamId = await d.team([
      [tess, 'admin'],
      [alice, 'member'],
    ]);
  });
  afterAll(async () => {
    await d?.close();
  });

  const shapeOf = (kind: Kind): Shape =>
    kind === 'witnessed' ? { type: 'witnessed_agreement', parties: [bob], witnesses: [carol], teamId } : { type: TYPE_OF[kind], parties: [bob, carol], teamId };
  const view = (who: Person, id: string) => d.services.records.get(who.principal, id);
  const rowOf = async (id: string, person: Person) => (await view(alice, id)).parties.find((p) => p.contactPointValue === person.email)!;

  /** A record of `kind` in `status`, reached by the real moves. */
  async function recordIn(kind: Kind, status: RecordStatus): Promise<string> {
    if (status === 'draft') return draft(d, alice, shapeOf(kind));
    const id = await submitted(d, alice, shapeOf(kind));
    if (status === 'counter_under_review') await d.services.counters.submit(bob.principal, id, { proposedBody: NEW_TERMS });
    if (status === 'sealed') for (const signer of [bob, carol]) await sign(d, signer, id);
    if (status === 'rescinded') await d.services.lifecycle.rescind(alice.principal, id);
    if (status === 'expired') await lapse(d, id);
    expect(await statusOf(d, id)).toBe(status);
    return id;
  }

  /** Each move as the initiator (or, for a decline, the participant) asks for it, on `target`. */
  const CALLS: Record<ParticipantMove, (id: string, target: string, who?: Person) => Promise<unknown>> = {
    decline: (id, _target, who = carol) => d.services.lifecycle.decline(who.principal, id, 'Not for me'),
    complete_without: (id, target, who = alice) => d.services.lifecycle.waive(who.principal, id, target, 'complete_without'),
    waive_witness: (id, target, who = alice) => d.services.lifecycle.waive(who.principal, id, target, 'waive_witness'),
    waive_co_notarizer: (id, target, who = alice) => d.services.lifecycle.waive(who.principal, id, target, 'waive_co_notarizer'),
    replace_witness: (id, target, who = alice) => d.services.lifecycle.replaceWitness(who.principal, id, target, { displayName: 'Dave', contactPointValue: dave.email }),
    resend_invitation: (id, target, who = alice) => d.services.lifecycle.resendInvitation(who.principal, id, target),
  };

  async function outcomeOf(call: Promise<unknown>): Promise<Outcome & { message?: string }> {
    try {
      await call;
      return { ok: true };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return { refused: error.code, message: error.message };
    }
  }

  /** Whether the initiator is offered `move` on `target` (a decline: whether Carol is offered it on the record). */
  function offered(record: RecordView, move: ParticipantMove, target: string, asCarol: RecordView): boolean {
    if (move === 'decline') return asCarol.availableActions.includes('decline');
    return (record.parties.find((p) => p.id === target)?.availableActions as string[] | undefined)?.includes(move) ?? false;
  }

  /** A move that needs its participant to have stepped out first (the table's `applies`). */
  const needsDecline = (move: ParticipantMove) => move !== 'decline' && move !== 'resend_invitation';

  describe('in which statuses and records, from the table', () => {
    const cases = PARTICIPANT_MOVES.flatMap((rule) =>
      (['agreement', 'witnessed', 'notarization'] as const)
        .filter((kind) => rule.roles.includes(kind === 'witnessed' ? 'witness' : 'party'))
        // A notarization is never under counter review: counters are for negotiated records.
        .flatMap((kind) => STATUSES.filter((status) => !(kind === 'notarization' && status === 'counter_under_review')).map((status) => [rule.move, kind, status] as const)),
    );

    /** Refusals change nothing (each case checks), so each kind and status has one record for them. */
    const shared = new Map<string, Promise<string>>();
    const sharedIn = (kind: Kind, status: RecordStatus) => {
      if (!shared.has(`${kind}:${status}`)) shared.set(`${kind}:${status}`, recordIn(kind, status));
      return shared.get(`${kind}:${status}`)!;
    };

    it.each(cases)('%s on Carol of a %s record, %s', async (move, kind, status) => {
      const rule = PARTICIPANT_MOVES.find((r) => r.move === move)!;
      const allowed = rule.statuses.includes(status) && (!rule.types || rule.types.includes(TYPE_OF[kind]));
      const id = allowed ? await recordIn(kind, status) : await sharedIn(kind, status);
      const target = (await rowOf(id, carol)).id;
      if (allowed && needsDecline(move)) await d.services.lifecycle.decline(carol.principal, id, null);
      const [asAlice, asCarol] = await Promise.all([view(alice, id), view(carol, id)]);
      expect(offered(asAlice, move, target, asCarol)).toBe(allowed);
      const mailed = (await d.deliverMail()).length;
      expect(await outcomeOf(CALLS[move](id, target))).toMatchObject(allowed ? { ok: true } : { refused: 'invalid_transition' });
      expect(await statusOf(d, id)).toBe(status);
      if (!allowed) return;
      const after = await view(alice, id);
      const carolRow = after.parties.find((p) => p.id === target);
      switch (move) {
        case 'decline':
          expect(carolRow).toMatchObject({ declinedAt: expect.any(Date), declinedReason: 'Not for me' });
          break;
        case 'complete_without':
        case 'waive_witness':
        case 'waive_co_notarizer':
          expect(carolRow).toMatchObject({ declinedAt: expect.any(Date), waivedAt: expect.any(Date) });
          break;
        case 'replace_witness':
          expect(carolRow).toBeUndefined();
          expect(after.parties.find((p) => p.contactPointValue === dave.email)).toMatchObject({ role: 'witness' });
          break;
        case 'resend_invitation':
          expect((await d.deliverMail()).slice(mailed).filter((m) => m.to === carol.email).map((m) => m.subject)).toEqual([expect.stringMatching(/^You are invited to /)]);
          break;
      }
    });
  });

  describe('who makes them and on whom, from the table', () => {
    /** Per kind, a pending record whose Carol declined: refusals change nothing, so it is shared. */
    const declined = new Map<Kind, Promise<string>>();
    const declinedIn = (kind: Kind) => {
      if (!declined.has(kind)) declined.set(kind, recordIn(kind, 'pending_confirmation').then(async (id) => (await d.services.lifecycle.decline(carol.principal, id, null), id)));
      return declined.get(kind)!;
    };
    const MOVES = PARTICIPANT_MOVES.filter((rule) => rule.actor === 'initiator');

    it.each(MOVES.flatMap((rule) => (['team admin', 'party', 'stranger'] as const).map((caller) => [rule.move, caller] as const)))(
      '%s asked by the %s',
      async (move, caller) => {
        const rule = PARTICIPANT_MOVES.find((r) => r.move === move)!;
        // The initiator's moves: an admin of the record's team makes them too; the other people in it may not; to anyone else the record does not exist.
        const want: Outcome = caller === 'team admin' ? { ok: true } : { refused: caller === 'party' ? 'forbidden' : 'not_found' };
        const kind: Kind = rule.types?.includes('notarization') ? 'notarization' : rule.roles.includes('witness') ? 'witnessed' : 'agreement';
        const id = 'ok' in want ? await recordIn(kind, 'pending_confirmation') : await declinedIn(kind);
        const target = (await rowOf(id, carol)).id;
        if ('ok' in want && needsDecline(move)) await d.services.lifecycle.decline(carol.principal, id, null);
        const who = { 'team admin': tess, party: bob, stranger: mallory }[caller];
        expect(await outcomeOf(CALLS[move](id, target, who))).toMatchObject(want);
      },
    );

    /** Per kind, a pending record whose Carol declined and was waived (the record goes on without her). */
    const waived = new Map<Kind, Promise<string>>();
    const waivedIn = (kind: Kind) => {
      const move = kind === 'witnessed' ? 'waive_witness' : kind === 'notarization' ? 'waive_co_notarizer' : 'complete_without';
      if (!waived.has(kind)) {
        waived.set(
          kind,
          recordIn(kind, 'pending_confirmation').then(async (id) => {
            await d.services.lifecycle.decline(carol.principal, id, null);
            await CALLS[move](id, (await rowOf(id, carol)).id);
            return id;
          }),
        );
      }
      return waived.get(kind)!;
    };

    /** Every participant of the kind's record whose Carol declined (and, last, of the one whose Carol was waived too), as the rule sees them. */
    const targets = ['initiator', 'Bob', 'Carol', 'Carol, waived'] as const;
    it.each(MOVES.flatMap((rule) => (['agreement', 'witnessed', 'notarization'] as const).flatMap((kind) => targets.map((whom) => [rule.move, whom, kind] as const))))(
      '%s on %s of a %s record whose Carol declined',
      async (move, whom, kind) => {
        const rule = PARTICIPANT_MOVES.find((r) => r.move === move)!;
        const shared = whom === 'Carol, waived' ? await waivedIn(kind) : await declinedIn(kind);
        const record = await view(alice, shared);
        const target = record.parties.find((p) => (whom === 'initiator' ? p.role === 'initiator' : p.displayName === whom.replace(', waived', '')))!;
        const typeAllows = !rule.types || rule.types.includes(TYPE_OF[kind]);
        const allowed = typeAllows && rule.roles.includes(target.role) && rule.applies(target, record.currentVersion);
        // The record's type is asked first (invalid_transition); then whether the move fits this participant (conflict).
        const want: Outcome = allowed ? { ok: true } : { refused: typeAllows ? 'conflict' : 'invalid_transition' };
        expect((target.availableActions as string[]).includes(move)).toBe(allowed);
        const id = allowed ? await recordIn(kind, 'pending_confirmation') : shared;
        if (allowed && whom === 'Carol') await d.services.lifecycle.decline(carol.principal, id, null);
        const targetId = allowed ? (await view(alice, id)).parties.find((p) => p.displayName === target.displayName && p.role === target.role)!.id : target.id;
        expect(await outcomeOf(CALLS[move](id, targetId))).toMatchObject(want);
      },
    );

    it('answers an unknown participant as not found', async () => {
      const id = await declinedIn('witnessed');
      for (const rule of MOVES) await expect(CALLS[rule.move](id, randomUUID())).rejects.toMatchObject({ code: 'not_found' });
    });

    it('waives a participant once', async () => {
      const id = await recordIn('witnessed', 'pending_confirmation');
      const target = (await rowOf(id, carol)).id;
      await d.services.lifecycle.decline(carol.principal, id, null);
      await CALLS.waive_witness(id, target);
      await expect(CALLS.waive_witness(id, target)).rejects.toMatchObject({ code: 'conflict' });
    });
  });

  describe('going on without a party who declined', () => {
    it('seals once the remaining party has signed', async () => {
      const id = await recordIn('agreement', 'pending_confirmation');
      await d.services.lifecycle.decline(carol.principal, id, 'Moving away');
      await CALLS.complete_without(id, (await rowOf(id, carol)).id);
      expect(await rowOf(id, carol)).toMatchObject({ declinedReason: 'Moving away', waivedAt: expect.any(Date) });
      expect(await statusOf(d, id)).toBe('pending_confirmation');
      await sign(d, bob, id);
      expect(await view(alice, id)).toMatchObject({ status: 'sealed', sealedAt: expect.any(Date) });
    });

    it.each(['before', 'after'] as const)("waits for the initiator's decision, and seals on it, when Bob signed %s Carol declined", async (when) => {
      const id = await recordIn('agreement', 'pending_confirmation');
      if (when === 'before') await sign(d, bob, id);
      await d.services.lifecycle.decline(carol.principal, id, null);
      if (when === 'after') await sign(d, bob, id);
      expect(await statusOf(d, id)).toBe('pending_confirmation');
      await CALLS.complete_without(id, (await rowOf(id, carol)).id);
      expect(await statusOf(d, id)).toBe('sealed');
    });

    it('ends the record when the last party able to sign declines', async () => {
      const id = await recordIn('agreement', 'pending_confirmation');
      await d.services.lifecycle.decline(carol.principal, id, null);
      await d.services.lifecycle.decline(bob.principal, id, null);
      expect(await statusOf(d, id)).toBe('declined');
    });
  });

  describe('witnesses who step out', () => {
    it('does not seal a witnessed agreement whose only witness declined until the initiator waives them', async () => {
      const id = await recordIn('witnessed', 'pending_confirmation');
      await d.services.lifecycle.decline(carol.principal, id, 'Away');
      expect((await view(alice, id)).witnessSummary).toMatchObject({ active: 0, declined: 1 });
      await sign(d, bob, id);
      expect(await statusOf(d, id)).toBe('pending_confirmation');
      await CALLS.waive_witness(id, (await rowOf(id, carol)).id);
      expect(await view(alice, id)).toMatchObject({ status: 'sealed', witnessSummary: { waived: 1 } });
    });

    it('replaces a declined witness with one who is invited at once and witnesses; the replaced one is out of the record', async () => {
      const id = await recordIn('witnessed', 'pending_confirmation');
      const reference = (await view(alice, id)).agrReference;
      await d.services.lifecycle.decline(carol.principal, id, null);
      const mailed = (await d.deliverMail()).length;
      await CALLS.replace_witness(id, (await rowOf(id, carol)).id);
      const replaced = await view(alice, id);
      expect(replaced.parties.map((p) => [p.role, p.contactPointValue])).toEqual([
        ['initiator', alice.email],
        ['party', bob.email],
        ['witness', dave.email],
      ]);
      expect(replaced.witnessSummary).toMatchObject({ active: 1 });
      const invitation = (await d.deliverMail()).slice(mailed).find((m) => m.to === dave.email)!;
      expect(invitation.subject).toBe('You are invited to witness “Garden sharing”');
      expect(invitation.text).toContain(reference);
      // Carol's replaced row no longer signs or reads the record, nor lists it.
      await expect(d.services.ceremonies.startOrResume(carol.principal, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(view(carol, id)).rejects.toMatchObject({ code: 'not_found' });
      expect((await d.services.records.list(carol.principal, {})).records.map((r) => r.id)).not.toContain(id);
      await sign(d, dave, id);
      await sign(d, bob, id);
      expect(await statusOf(d, id)).toBe('sealed');
    });

    it('checks the replacement witness', async () => {
      const id = await recordIn('witnessed', 'pending_confirmation');
      await d.services.lifecycle.decline(carol.principal, id, null);
      const target = (await rowOf(id, carol)).id;
      const replace = (contactPointValue: string) => d.services.lifecycle.replaceWitness(alice.principal, id, target, { displayName: 'Someone', contactPointValue });
      for (const address of ['not-an-email', bob.email, alice.email]) {
        expect([address, await outcomeOf(replace(address))]).toMatchObject([address, { refused: 'validation_error' }]);
      }
      expect(await rowOf(id, carol)).toMatchObject({ declinedAt: expect.any(Date) });
    });
  });

  it('seals a notarization once the declined co-notarizer is waived', async () => {
    const id = await recordIn('notarization', 'pending_confirmation');
    await sign(d, bob, id);
    await d.services.lifecycle.decline(carol.principal, id, null);
    expect(await statusOf(d, id)).toBe('pending_confirmation');
    await CALLS.waive_co_notarizer(id, (await rowOf(id, carol)).id);
    expect(await view(alice, id)).toMatchObject({ status: 'sealed' });
    expect((await rowOf(id, carol)).waivedAt).toEqual(expect.any(Date));
  });

  it('refuses a counter-proposal on a notarization: its text is fixed by the notarized hash', async () => {
    const id = await recordIn('notarization', 'pending_confirmation');
    await expect(d.services.counters.submit(carol.principal, id, { proposedBody: NEW_TERMS })).rejects.toMatchObject({ code: 'invalid_transition' });
    expect(await statusOf(d, id)).toBe('pending_confirmation');
  });

  describe('invitation resends', () => {
    it('mails the invitation again, three times an hour for each participant', async () => {
      const id = await recordIn('agreement', 'pending_confirmation');
      const reference = (await view(alice, id)).agrReference;
      const invitations = async (person: Person) => (await d.deliverMail()).filter((m) => m.to === person.email && m.text.includes(reference)).length;
      const bobRow = (await rowOf(id, bob)).id;
      expect(await invitations(bob)).toBe(1);
      for (let resend = 1; resend <= 3; resend += 1) {
        await CALLS.resend_invitation(id, bobRow);
        expect(await invitations(bob)).toBe(1 + resend);
      }
      await expect(CALLS.resend_invitation(id, bobRow)).rejects.toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: expect.any(Number) } });
      expect(await invitations(bob)).toBe(4);
      // The limit is per participant: Carol's invitation can still be resent.
      await CALLS.resend_invitation(id, (await rowOf(id, carol)).id);
      expect(await invitations(carol)).toBe(2);
    });

    it('counts a resend exactly when it queues its mail: of five at once, three are sent and two refused', async () => {
      const id = await recordIn('agreement', 'pending_confirmation');
      const reference = (await view(alice, id)).agrReference;
      const bobRow = (await rowOf(id, bob)).id;
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => CALLS.resend_invitation(id, bobRow)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
      for (const outcome of outcomes.filter((o) => o.status === 'rejected')) expect(outcome.reason).toMatchObject({ code: 'rate_limited' });
      expect((await d.deliverMail()).filter((m) => m.to === bob.email && m.text.includes(reference))).toHaveLength(4);
    });

    it('refuses a resend to someone who signed this version already', async () => {
      const id = await recordIn('agreement', 'pending_confirmation');
      await sign(d, bob, id);
      await expect(CALLS.resend_invitation(id, (await rowOf(id, bob)).id)).rejects.toMatchObject({ code: 'conflict' });
    });
  });
});
