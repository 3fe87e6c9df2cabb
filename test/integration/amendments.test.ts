import type { RecordView } from '../../src/domain/records/record-view.js';
import { openDomain, type Domain, type Person } from '../support/domain.js';
import { BODY, NEW_TERMS, newCast, recordAt, sign, statusOf, submitted, type Cast } from '../support/record-stages.js';

/**
 * After the seal a record changes only through a successor (AmendmentService): an amendment or a
 * mutual cancellation, a new draft the same people sign, which supersedes the original when it seals.
 */
describe('AmendmentService', () => {
  let d: Domain;
  let alice: Person;
  let bob: Person;
  let dave: Person;

  beforeAll(async () => {
    d = await openDomain();
    [alice, bob, dave] = await Promise.all(['Alice', 'Bob', 'Dave'].map((name) => d.person(name))) as [Person, Person, Person];
  });
  afterAll(async () => {
    await d?.close();
  });

  const view = (who: Person, id: string) => d.services.records.get(who.principal, id);
  const emailsOf = (record: RecordView, role: string) => record.parties.filter((p) => p.role === role).map((p) => p.contactPointValue);

  /** Alice's agreement with Bob, signed by both. */
  async function sealed(parties: Person[] = [bob]): Promise<string> {
    const id = await submitted(d, alice, { parties });
    for (const party of parties) await sign(d, party, id);
    expect(await statusOf(d, id)).toBe('sealed');
    return id;
  }

  /** A successor draft signed by its initiator, submitted and signed by everyone else: it seals. */
  async function sealSuccessor(id: string, initiator: Person, others: Person[]): Promise<void> {
    await sign(d, initiator, id);
    await d.services.lifecycle.submit(initiator.principal, id);
    for (const other of others) await sign(d, other, id);
    expect(await statusOf(d, id)).toBe('sealed');
  }

  it('amends a sealed record into a new draft that the same people sign, linked to it', async () => {
    const original = await view(alice, await sealed());
    const amendment = await view(alice, await d.services.amendments.amend(alice.principal, original.id, { body: NEW_TERMS, amendmentNote: 'Watering more often in summer' }));
    expect(amendment).toMatchObject({
      status: 'draft',
      type: 'agreement',
      title: 'Garden sharing',
      body: NEW_TERMS,
      currentVersion: 1,
      supersedesAgrId: original.id,
      supersededByAgrId: null,
      metadata: { kind: 'amendment', amends: original.agrReference, amendment_note: 'Watering more often in summer' },
    });
    expect(amendment.agrReference).not.toBe(original.agrReference);
    expect([emailsOf(amendment, 'initiator'), emailsOf(amendment, 'party')]).toEqual([[alice.email], [bob.email]]);
    expect(await view(alice, original.id)).toMatchObject({ status: 'sealed', supersededByAgrId: null });
  });

  it('drafts a mutual cancellation whose text names the record and the reason', async () => {
    const original = await view(alice, await sealed());
    const cancellation = await view(bob, await d.services.amendments.cancel(bob.principal, original.id, { reason: 'We moved away' }));
    expect(cancellation).toMatchObject({ status: 'draft', supersedesAgrId: original.id, metadata: { kind: 'mutual_cancellation', cancels: original.agrReference, reason: 'We moved away' } });
    expect(cancellation.body).toContain(original.agrReference);
    expect(cancellation.body).toContain('We moved away');
  });

  it('makes the amending party the initiator of the amendment, and the original initiator a party', async () => {
    const original = await sealed();
    const amendment = await d.services.amendments.amend(bob.principal, original, { body: NEW_TERMS });
    const read = await view(bob, amendment);
    expect([emailsOf(read, 'initiator'), emailsOf(read, 'party')]).toEqual([[bob.email], [alice.email]]);
    await expect(d.services.lifecycle.submit(alice.principal, amendment)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(d.services.ceremonies.startOrResume(alice.principal, amendment)).rejects.toMatchObject({ code: 'invalid_transition' });
    await sealSuccessor(amendment, bob, [alice]);
    expect(await view(alice, original)).toMatchObject({ status: 'superseded', supersededByAgrId: amendment });
  });

  it("keeps a team record's initiator when an admin of the team amends it: the admin manages, the initiator signs", async () => {
    const cast: Cast = await newCast(d);
    const original = await recordAt(d, cast, 'sealed');
    const amendment = await d.services.amendments.amend(cast.admin.principal, original.id, { body: NEW_TERMS });
    const byInitiator = await view(cast.initiator, amendment);
    expect(byInitiator.teamId).toBe(cast.teamId);
    expect([emailsOf(byInitiator, 'initiator'), emailsOf(byInitiator, 'party'), emailsOf(byInitiator, 'witness')]).toEqual([[cast.initiator.email], [cast.party.email], [cast.witness.email]]);
    // The initiator signs their draft; the admin manages it as its initiator may, and never signs for them.
    expect(byInitiator.availableActions).toEqual(['edit', 'cancel_draft', 'sign']);
    expect((await view(cast.admin, amendment)).availableActions).toEqual(['edit', 'cancel_draft']);
    await expect(d.services.ceremonies.startOrResume(cast.admin.principal, amendment)).rejects.toMatchObject({ code: 'forbidden' });
    await sealSuccessor(amendment, cast.initiator, [cast.party, cast.witness]);
    expect(await statusOf(d, original.id)).toBe('superseded');
  });

  it('leaves out of the successor whoever the record went on without', async () => {
    const id = await submitted(d, alice, { parties: [bob, dave] });
    await d.services.lifecycle.decline(dave.principal, id, null);
    const daveRow = (await view(alice, id)).parties.find((p) => p.contactPointValue === dave.email)!;
    await d.services.lifecycle.waive(alice.principal, id, daveRow.id, 'complete_without');
    await sign(d, bob, id);
    const amendment = await view(alice, await d.services.amendments.amend(alice.principal, id, { body: NEW_TERMS }));
    expect(amendment.parties.map((p) => p.contactPointValue)).toEqual([alice.email, bob.email]);
  });

  it('allows one open amendment or cancellation at a time', async () => {
    const original = await sealed();
    const first = await d.services.amendments.amend(alice.principal, original, { body: NEW_TERMS });
    await expect(d.services.amendments.amend(bob.principal, original, { body: `${NEW_TERMS} On weekends only.` })).rejects.toMatchObject({ code: 'conflict' });
    await expect(d.services.amendments.cancel(bob.principal, original, {})).rejects.toMatchObject({ code: 'conflict' });
    // Once the open draft is cancelled, another may start.
    await d.services.amendments.cancel(alice.principal, first, {});
    expect(await statusOf(d, first)).toBe('cancelled_draft');
    await expect(d.services.amendments.amend(bob.principal, original, { body: NEW_TERMS })).resolves.toEqual(expect.any(String));
  });

  it('lets exactly one of a racing amendment and cancellation through', async () => {
    const original = await sealed();
    const outcomes = await Promise.allSettled([
      d.services.amendments.amend(alice.principal, original, { body: NEW_TERMS }),
      d.services.amendments.cancel(bob.principal, original, {}),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'conflict' } });
  });

  it('supersedes the original when its amendment seals, and a superseded record is amended no more', async () => {
    const original = await sealed();
    const amendment = await d.services.amendments.amend(alice.principal, original, { body: NEW_TERMS });
    await sealSuccessor(amendment, alice, [bob]);
    expect(await view(bob, original)).toMatchObject({ status: 'superseded', supersededByAgrId: amendment });
    expect(await view(bob, amendment)).toMatchObject({ body: NEW_TERMS, supersedesAgrId: original });
    await expect(d.services.amendments.amend(alice.principal, original, { body: NEW_TERMS })).rejects.toMatchObject({ code: 'invalid_transition' });
  });

  it('supersedes the original when a mutual cancellation seals', async () => {
    const original = await sealed();
    const cancellation = await d.services.amendments.cancel(alice.principal, original, { reason: 'Garden sold' });
    await sealSuccessor(cancellation, alice, [bob]);
    expect(await view(alice, original)).toMatchObject({ status: 'superseded', supersededByAgrId: cancellation });
  });

  it("checks the amendment's text and note, and the cancellation's reason, against the limits", async () => {
    const original = await sealed();
    const refused = async (call: Promise<unknown>) => {
      const error = (await call.then(() => null, (e: unknown) => e)) as { code: string; details: { issues: { path: string[]; type: string }[] } } | null;
      expect(error?.code).toBe('validation_error');
      return error!.details.issues.map((issue) => [issue.path.join('.'), issue.type]);
    };
    const amend = (input: { body: string; amendmentNote?: string }) => refused(d.services.amendments.amend(alice.principal, original, input));
    expect(await amend({ body: 'Too short' })).toContainEqual(['body', expect.any(String)]);
    expect(await amend({ body: `${'word '.repeat(1401)}end` })).toContainEqual(['body', expect.any(String)]);
    expect(await amend({ body: Array.from({ length: 351 }, (_, i) => `w${i}`).join(' ') })).toContainEqual(['body', expect.any(String)]);
    expect(await amend({ body: NEW_TERMS, amendmentNote: 'n'.repeat(501) })).toEqual([['amendmentNote', expect.any(String)]]);
    expect(await amend({ body: BODY })).toEqual([['body', 'unchanged']]);
    expect(await refused(d.services.amendments.cancel(alice.principal, original, { reason: 'r'.repeat(501) }))).toEqual([['reason', expect.any(String)]]);
    expect(await view(alice, original)).toMatchObject({ status: 'sealed', supersededByAgrId: null });
  });
});
