import { auditTrail } from '../../src/domain/records/audit-trail.js';
import { openDomain, type Domain, type Person } from '../support/domain.js';
import { BODY, draft, newestCode, satisfy, sign, statusOf, submitted, type Shape } from '../support/record-stages.js';

/**
 * The signature ceremony's rules (CeremonyService, and RecordService for what starts a new version):
 * an execution per participant and version, distinct methods up to the record's count, evidence bound
 * to the version; and whose turn it is in each signing order.
 */
describe('CeremonyService', () => {
  let d: Domain;
  let alice: Person;
  let bob: Person;
  let carol: Person;
  let dave: Person;

  beforeAll(async () => {
    d = await openDomain();
    [alice, bob, carol, dave] = (await Promise.all(['Alice', 'Bob', 'Carol', 'Dave'].map((name) => d.person(name)))) as [Person, Person, Person, Person];
  });
  afterAll(async () => {
    await d?.close();
  });

  const ceremonies = () => d.services.ceremonies;
  const view = (who: Person, id: string) => d.services.records.get(who.principal, id);
  /** The record's audit trail as `actor:move`. */
  const trail = async (id: string) => (await auditTrail(d.orm.em.fork(), id)).map((entry) => `${entry.actor_role}:${entry.move}`);

  describe('an execution', () => {
    it('is started for the current version and resumed, listing the methods that can serve this signer', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      const started = await ceremonies().startOrResume(alice.principal, id);
      expect(started).toMatchObject({ recordId: id, recordVersion: 1, status: 'in_progress', requiredSignatureMethodCount: 1, satisfiedMethodCount: 0, canFinalize: false, finalizedAt: null });
      // Not messenger (no messenger contact point), not api_key (a session, not a key).
      expect(started.methods.map((m) => [m.methodType, m.status])).toEqual(['email_otp', 'codehost_gist', 'microblog_post', 'forum_post', 'webauthn_passkey'].map((type) => [type, 'available']));
      expect((await ceremonies().startOrResume(alice.principal, id)).id).toBe(started.id);
      expect((await ceremonies().get(alice.principal, id)).id).toBe(started.id);
      expect(await trail(id)).toEqual(['initiator:create', 'initiator:execution_started']);
    });

    it('is started by a method started without it, and the trail says so as when it is started first', async () => {
      const direct = await draft(d, alice, { parties: [bob] });
      await ceremonies().startMethod(alice.principal, direct, 'email_otp', {});
      const stepwise = await draft(d, alice, { parties: [bob] });
      await ceremonies().startOrResume(alice.principal, stepwise);
      await ceremonies().startMethod(alice.principal, stepwise, 'email_otp', {});
      expect(await trail(direct)).toEqual(['initiator:create', 'initiator:execution_started', 'initiator:method_started']);
      expect(await trail(direct)).toEqual(await trail(stepwise));
    });

    it('can finalize only once the required number of distinct methods is satisfied', async () => {
      const id = await draft(d, alice, { parties: [bob], requiredSignatureMethodCount: 2 });
      expect(await satisfy(d, alice, id)).toMatchObject({ requiredSignatureMethodCount: 2, satisfiedMethodCount: 1, canFinalize: false });
      // The same method twice never counts twice.
      await expect(ceremonies().startMethod(alice.principal, id, 'email_otp', {})).rejects.toMatchObject({ code: 'conflict' });
      await expect(ceremonies().finalize(alice.principal, id, {})).rejects.toMatchObject({ code: 'signature_incomplete' });
    });

    it('finalizes with evidence bound to the version and an identicon, once', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      await satisfy(d, alice, id);
      expect((await view(alice, id)).initiatorSignature).toMatchObject({ status: 'in_progress', satisfiedMethodCount: 1, canFinalize: true });
      await ceremonies().finalize(alice.principal, id, {});
      const read = await view(alice, id);
      expect(read).toMatchObject({ readyForSubmission: true, initiatorSignature: { status: 'finalized', confirmedVersion: 1 } });
      const execution = await ceremonies().get(alice.principal, id);
      expect(execution).toMatchObject({ status: 'finalized', canFinalize: false, finalizedAt: expect.any(Date) });
      expect(execution.signatureIdenticon).toMatchObject({ kind: 'signature', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), available: true });
      expect(read.parties.find((p) => p.role === 'initiator')).toMatchObject({ confirmedVersion: 1, signatureIdenticon: { digest: execution.signatureIdenticon!.digest } });
      const [stored] = await d.orm.em.fork().execute<{ record_version: number; evidence: unknown }[]>('select record_version, evidence from signature_executions where id = ?', [execution.id]);
      expect(stored).toEqual({
        record_version: 1,
        evidence: [{ methodType: 'email_otp', satisfiedAt: expect.any(String), evidenceHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }],
      });
      await expect(ceremonies().finalize(alice.principal, id, {})).rejects.toMatchObject({ code: 'conflict' });
      expect(await trail(id)).toEqual(['initiator:create', 'initiator:execution_started', 'initiator:method_started', 'initiator:method_satisfied', 'initiator:finalized']);
    });

    it('starts over when the draft text changes', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      const first = await satisfy(d, alice, id);
      expect((await d.services.records.update(alice.principal, id, { body: `${BODY} Tomatoes too.` })).currentVersion).toBe(2);
      const next = await ceremonies().startOrResume(alice.principal, id);
      expect(next).toMatchObject({ recordVersion: 2, satisfiedMethodCount: 0, canFinalize: false });
      expect(next.id).not.toBe(first.id);
    });

    it('starts a new version when the terms change after signing began, not before', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      expect((await d.services.records.update(alice.principal, id, { title: 'Renamed before signing' })).currentVersion).toBe(1);
      await sign(d, alice, id);
      // Publishing verified parties on chain is a term the signer never acknowledged: signing starts over.
      const more = await d.services.records.update(alice.principal, id, { onChainIncludeVerifiedParties: true, requiredSignatureMethodCount: 2 });
      expect(more).toMatchObject({ currentVersion: 2, initiatorSignature: { status: 'not_started' }, readyForSubmission: false });
      expect(await ceremonies().startOrResume(alice.principal, id)).toMatchObject({ recordVersion: 2, requiredSignatureMethodCount: 2, satisfiedMethodCount: 0 });
      // A summary or the lapse is not a term.
      expect((await d.services.records.update(alice.principal, id, { summary: 'Short summary', lapseDays: 9 })).currentVersion).toBe(2);
    });

    it('needs the acknowledgement on a record that publishes verified parties', async () => {
      const id = await draft(d, alice, { parties: [bob], onChainIncludeVerifiedParties: true });
      await satisfy(d, alice, id);
      await expect(ceremonies().finalize(alice.principal, id, {})).rejects.toMatchObject({ code: 'acknowledgement_required' });
      await ceremonies().finalize(alice.principal, id, { acknowledgePublicVerifiedParties: true });
      expect((await view(alice, id)).initiatorSignature).toMatchObject({ status: 'finalized' });
    });

    it('refuses a method it does not know, and one that cannot serve this signer', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      await expect(ceremonies().startMethod(alice.principal, id, 'carrier_pigeon', {})).rejects.toMatchObject({
        code: 'validation_error',
        details: { issues: [{ path: ['methodType'], type: 'invalid_enum' }] },
      });
      await expect(ceremonies().startMethod(alice.principal, id, 'api_key', {})).rejects.toMatchObject({ details: { issues: [{ path: ['methodType'], type: 'method_not_applicable' }] } });
    });

    it('cancels a pending method, which a refresh leaves cancelled', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      await ceremonies().startMethod(alice.principal, id, 'email_otp', {});
      expect((await ceremonies().cancelMethod(alice.principal, id, 'email_otp')).methods[0]).toMatchObject({ status: 'cancelled', step: null });
      expect((await ceremonies().refreshMethod(alice.principal, id, 'email_otp')).methods[0]!.status).toBe('cancelled');
      await expect(ceremonies().cancelMethod(alice.principal, id, 'email_otp')).rejects.toMatchObject({ code: 'conflict' });
    });

    it('takes only the signature code of this ceremony', async () => {
      const id = await draft(d, alice, { parties: [bob] });
      await ceremonies().startMethod(alice.principal, id, 'email_otp', {});
      const code = await newestCode(d, alice);
      const wrong = code === '000000' ? '111111' : '000000';
      await expect(ceremonies().submitMethod(alice.principal, id, 'email_otp', { code: wrong })).rejects.toMatchObject({ details: { issues: [{ path: ['code'], type: 'otp_invalid' }] } });
      expect(await ceremonies().submitMethod(alice.principal, id, 'email_otp', { code })).toMatchObject({ canFinalize: true });
    });
  });

  describe('signing order', () => {
    const invitationsTo = async (person: Person, reference: string) =>
      (await d.deliverMail()).filter((m) => m.to === person.email && m.subject.startsWith('You are invited to') && m.text.includes(reference)).length;
    const rowOf = async (id: string, person: Person) => (await view(alice, id)).parties.find((p) => p.contactPointValue === person.email)!;
    const sequential = (shape: Shape = {}) => submitted(d, alice, { parties: [bob, carol], signingOrder: 'sequential', ...shape });

    it('sequential: invites the parties one at a time in list order, and only the party whose turn it is signs', async () => {
      const id = await sequential();
      const { agrReference: reference } = await view(alice, id);
      const [bobRow, carolRow] = [await rowOf(id, bob), await rowOf(id, carol)];
      expect((await view(alice, id)).currentSignerIds).toEqual([bobRow.id]);
      expect([await invitationsTo(bob, reference), await invitationsTo(carol, reference)]).toEqual([1, 0]);

      // Carol's turn has not come: no sign action, a refusal naming whose turn it is, no resend.
      expect((await view(carol, id)).availableActions).toEqual(['decline', 'propose_counter']);
      await expect(ceremonies().startOrResume(carol.principal, id)).rejects.toMatchObject({ code: 'invalid_transition', message: expect.stringContaining("waiting for Bob's signature") });
      await expect(d.services.lifecycle.resendInvitation(alice.principal, id, carolRow.id)).rejects.toMatchObject({
        code: 'invalid_transition',
        message: expect.stringContaining('No invitation to resend yet'),
      });
      expect([bobRow.availableActions, carolRow.availableActions]).toEqual([['resend_invitation'], []]);
      expect((await view(bob, id)).availableActions).toContain('sign');

      // Bob signs: the turn passes to Carol, whose invitation goes out once.
      await sign(d, bob, id);
      expect((await view(alice, id)).currentSignerIds).toEqual([carolRow.id]);
      expect([await invitationsTo(bob, reference), await invitationsTo(carol, reference)]).toEqual([1, 1]);
      expect((await view(carol, id)).availableActions).toContain('sign');
      await sign(d, carol, id);
      expect(await view(alice, id)).toMatchObject({ status: 'sealed', currentSignerIds: [] });
      expect(await invitationsTo(carol, reference)).toBe(1);
    });

    it('sequential: a decline holds the turn until the initiator goes on without that party', async () => {
      const id = await sequential();
      const { agrReference: reference } = await view(alice, id);
      await d.services.lifecycle.decline(bob.principal, id, 'Not now');
      const held = await view(carol, id);
      expect(held).toMatchObject({ status: 'pending_confirmation', currentSignerIds: [] });
      expect(held.availableActions).not.toContain('sign');
      await expect(ceremonies().startOrResume(carol.principal, id)).rejects.toMatchObject({ code: 'invalid_transition', message: expect.stringContaining("Bob's decline waits for the initiator") });
      await d.services.lifecycle.waive(alice.principal, id, (await rowOf(id, bob)).id, 'complete_without');
      expect((await view(alice, id)).currentSignerIds).toEqual([(await rowOf(id, carol)).id]);
      expect(await invitationsTo(carol, reference)).toBe(1);
      await sign(d, carol, id);
      expect(await statusOf(d, id)).toBe('sealed');
    });

    it('sequential: the witnesses sign, and are invited, once every party has signed', async () => {
      const id = await sequential({ type: 'witnessed_agreement', witnesses: [dave] });
      const { agrReference: reference } = await view(alice, id);
      await expect(ceremonies().startOrResume(dave.principal, id)).rejects.toMatchObject({ code: 'invalid_transition', message: expect.stringContaining('witnesses sign once every party has signed') });
      await sign(d, bob, id);
      await expect(ceremonies().startOrResume(dave.principal, id)).rejects.toMatchObject({ code: 'invalid_transition' });
      expect(await invitationsTo(dave, reference)).toBe(0);
      await sign(d, carol, id);
      expect((await view(alice, id)).currentSignerIds).toEqual([(await rowOf(id, dave)).id]);
      expect(await invitationsTo(dave, reference)).toBe(1);
      await sign(d, dave, id);
      expect(await statusOf(d, id)).toBe('sealed');
    });

    it('parallel: everyone is invited at submission and signs in any order, a witness before the parties too', async () => {
      const id = await submitted(d, alice, { type: 'witnessed_agreement', parties: [bob, carol], witnesses: [dave] });
      const read = await view(alice, id);
      expect(read.signingOrder).toBe('parallel');
      expect(read.currentSignerIds).toHaveLength(3);
      for (const person of [bob, carol, dave]) expect(await invitationsTo(person, read.agrReference)).toBe(1);
      await sign(d, dave, id);
      await sign(d, carol, id);
      expect(await statusOf(d, id)).toBe('pending_confirmation');
      await sign(d, bob, id);
      expect(await statusOf(d, id)).toBe('sealed');
    });
  });
});
