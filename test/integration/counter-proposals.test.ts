import { randomUUID } from 'node:crypto';
import { openDomain, type Domain, type Person } from '../support/domain.js';
import { BODY, lapse, NEW_TERMS, satisfy, sign, statusOf, submitted } from '../support/record-stages.js';

const RESOLVED_BODY = 'We agree to share the garden equally and to take turns watering it twice a week.';

/**
 * Counter-proposals (CounterService): a party proposes a whole new text, which the initiator accepts,
 * partially accepts or rejects, or its proposer withdraws; one under review at a time, and an accepted
 * change of text is a new version that every signature must sign again.
 */
describe('CounterService', () => {
  let d: Domain;
  let alice: Person;
  let bob: Person;
  let carol: Person;
  let mallory: Person;

  beforeAll(async () => {
    d = await openDomain();
    [alice, bob, carol, mallory] = (await Promise.all(['Alice', 'Bob', 'Carol', 'Mallory'].map((name) => d.person(name)))) as [Person, Person, Person, Person];
  });
  afterAll(async () => {
    await d?.close();
  });

  const view = (who: Person, id: string) => d.services.records.get(who.principal, id);
  /** Alice's agreement, signed by her and submitted: pending confirmation by Bob (and Carol). */
  const pending = (withCarol = false) => submitted(d, alice, { parties: withCarol ? [bob, carol] : [bob] });
  const propose = async (id: string, who = bob, body = NEW_TERMS) => (await d.services.counters.submit(who.principal, id, { proposedBody: body })).id;

  it("puts a party's proposal under review, as the record's active counter", async () => {
    const id = await pending();
    const counter = await d.services.counters.submit(bob.principal, id, { proposedBody: NEW_TERMS, rawInput: 'every other evening please' });
    expect(counter).toEqual({
      id: expect.any(String),
      agreementId: id,
      status: 'pending',
      proposedByContactPointId: bob.contactPointId,
      proposedByParticipantId: expect.any(String),
      rawInput: 'every other evening please',
      assistedText: null,
      proposedBody: NEW_TERMS,
      diffSummary: '3 words added, 4 removed',
      resolvedBody: null,
      createdAt: expect.any(Date),
      resolvedAt: null,
    });
    const read = await view(alice, id);
    expect(read).toMatchObject({ status: 'counter_under_review', body: BODY, activeCounter: { id: counter.id, status: 'pending', proposedBody: NEW_TERMS } });
    // Everyone in the record reads it; outside the record it does not exist.
    for (const who of [alice, bob]) expect(await d.services.counters.get(who.principal, id, counter.id)).toMatchObject({ id: counter.id, status: 'pending' });
    await expect(d.services.counters.get(mallory.principal, id, counter.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(d.services.counters.get(alice.principal, id, randomUUID())).rejects.toMatchObject({ code: 'not_found' });
  });

  it('takes one counter at a time: another party gets counter_active, and of two racing proposals one goes through', async () => {
    const id = await pending(true);
    await propose(id);
    await expect(propose(id, carol, RESOLVED_BODY)).rejects.toMatchObject({ code: 'counter_active' });

    const raced = await pending(true);
    const outcomes = await Promise.allSettled([propose(raced, bob), propose(raced, carol, RESOLVED_BODY)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'counter_active' } });
    const winner = outcomes.find((o): o is PromiseFulfilledResult<string> => o.status === 'fulfilled')!.value;
    expect((await view(alice, raced)).activeCounter?.id).toBe(winner);
  });

  it('refuses a proposal that is no change, or no valid text', async () => {
    const id = await pending();
    await expect(propose(id, bob, BODY)).rejects.toMatchObject({ code: 'validation_error', details: { issues: [{ path: ['proposedBody'], type: 'unchanged' }] } });
    await expect(propose(id, bob, 'Too short')).rejects.toMatchObject({ code: 'validation_error', details: { issues: [{ path: ['proposedBody'] }] } });
    expect(await statusOf(d, id)).toBe('pending_confirmation');
  });

  it('returns the record to pending confirmation when the proposer withdraws, once', async () => {
    const id = await pending();
    const counter = await propose(id);
    await d.services.counters.withdraw(bob.principal, id, counter);
    expect(await view(alice, id)).toMatchObject({ status: 'pending_confirmation', activeCounter: null, body: BODY, currentVersion: 1 });
    expect(await d.services.counters.get(bob.principal, id, counter)).toMatchObject({ status: 'withdrawn', resolvedAt: expect.any(Date), resolvedBody: null });
    await expect(d.services.counters.withdraw(bob.principal, id, counter)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('keeps the text and every signature when the initiator rejects', async () => {
    const id = await pending();
    const counter = await propose(id);
    await d.services.counters.resolve(alice.principal, id, counter, { decision: 'reject' });
    expect(await view(alice, id)).toMatchObject({ status: 'pending_confirmation', body: BODY, currentVersion: 1, activeCounter: null, initiatorSignature: { status: 'finalized' } });
    expect(await d.services.counters.get(bob.principal, id, counter)).toMatchObject({ status: 'rejected', resolvedAt: expect.any(Date) });
    await expect(d.services.counters.resolve(alice.principal, id, counter, { decision: 'accept' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('starts version 2 when the initiator accepts: every signature work of version 1 stops counting', async () => {
    const id = await pending();
    // Bob is halfway through signing version 1 when he proposes a change.
    expect(await satisfy(d, bob, id)).toMatchObject({ recordVersion: 1, canFinalize: true });
    const counter = await propose(id);
    await d.services.counters.resolve(alice.principal, id, counter, { decision: 'accept' });
    const accepted = await view(alice, id);
    expect(accepted).toMatchObject({ status: 'pending_confirmation', body: NEW_TERMS, currentVersion: 2, activeCounter: null });
    expect(accepted.initiatorSignature).toMatchObject({ status: 'not_started', confirmedVersion: 1 });
    expect(await d.services.counters.get(alice.principal, id, counter)).toMatchObject({ status: 'accepted', resolvedBody: NEW_TERMS });
    for (const who of [alice, bob]) {
      expect(await d.services.ceremonies.startOrResume(who.principal, id)).toMatchObject({ recordVersion: 2, satisfiedMethodCount: 0, canFinalize: false, status: 'in_progress' });
    }
    // Both sign the new version; the record seals on it.
    await sign(d, alice, id);
    expect(await statusOf(d, id)).toBe('pending_confirmation');
    await sign(d, bob, id);
    const sealed = await view(alice, id);
    expect(sealed).toMatchObject({ status: 'sealed', body: NEW_TERMS, currentVersion: 2, sealedAt: expect.any(Date) });
    expect(sealed.parties.map((p) => p.confirmedVersion)).toEqual([2, 2]);
  });

  it('needs the resolved text for a partial acceptance, and adopts it', async () => {
    const id = await pending();
    const counter = await propose(id);
    await expect(d.services.counters.resolve(alice.principal, id, counter, { decision: 'partially_accept' })).rejects.toMatchObject({
      code: 'validation_error',
      details: { issues: [{ path: ['resolvedBody'], type: 'missing' }] },
    });
    await expect(d.services.counters.resolve(alice.principal, id, counter, { decision: 'maybe' })).rejects.toMatchObject({ details: { issues: [{ path: ['decision'] }] } });
    await d.services.counters.resolve(alice.principal, id, counter, { decision: 'partially_accept', resolvedBody: RESOLVED_BODY });
    expect(await view(alice, id)).toMatchObject({ status: 'pending_confirmation', body: RESOLVED_BODY, currentVersion: 2 });
    expect(await d.services.counters.get(bob.principal, id, counter)).toMatchObject({ status: 'partially_accepted', proposedBody: NEW_TERMS, resolvedBody: RESOLVED_BODY });
  });

  it('lets exactly one of two racing resolutions win', async () => {
    const id = await pending();
    const counter = await propose(id);
    const outcomes = await Promise.allSettled(
      (['accept', 'reject'] as const).map((decision) => d.services.counters.resolve(alice.principal, id, counter, { decision })),
    );
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const accepted = outcomes[0]!.status === 'fulfilled';
    expect((await view(alice, id)).currentVersion).toBe(accepted ? 2 : 1);
  });

  it("withdraws a proposer's counter when they decline, and seals once the initiator goes on without them", async () => {
    const id = await pending(true);
    await sign(d, carol, id);
    const counter = await propose(id);
    await d.services.lifecycle.decline(bob.principal, id, null);
    const declined = await view(alice, id);
    expect(declined).toMatchObject({ status: 'pending_confirmation', activeCounter: null });
    expect(await d.services.counters.get(alice.principal, id, counter)).toMatchObject({ status: 'withdrawn' });
    const bobRow = declined.parties.find((p) => p.contactPointValue === bob.email)!;
    await d.services.lifecycle.waive(alice.principal, id, bobRow.id, 'complete_without');
    expect(await view(alice, id)).toMatchObject({ status: 'sealed', currentVersion: 1 });
  });

  it('seals at once when a rejection leaves everyone signed, or on the last signature after it', async () => {
    const id = await pending(true);
    await sign(d, carol, id);
    const counter = await propose(id);
    await d.services.counters.resolve(alice.principal, id, counter, { decision: 'reject' });
    expect(await statusOf(d, id)).toBe('pending_confirmation');
    await sign(d, bob, id);
    expect(await statusOf(d, id)).toBe('sealed');
  });

  it('leaves no active counter on a record rescinded or lapsed under review: the counter, read by its id, stays pending and nobody can settle it', async () => {
    const rescinded = await pending();
    const expired = await pending();
    const counters = [await propose(rescinded), await propose(expired)];
    await d.services.lifecycle.rescind(alice.principal, rescinded);
    await lapse(d, expired);
    for (const [id, counter] of [[rescinded, counters[0]!], [expired, counters[1]!]] as const) {
      expect(await d.services.counters.get(alice.principal, id, counter)).toMatchObject({ status: 'pending', resolvedAt: null });
      expect((await view(alice, id)).activeCounter).toBeNull();
      await expect(d.services.counters.resolve(alice.principal, id, counter, { decision: 'reject' })).rejects.toMatchObject({ code: 'invalid_transition' });
      await expect(d.services.counters.withdraw(bob.principal, id, counter)).rejects.toMatchObject({ code: 'invalid_transition' });
    }
  });
});
