import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

type Party = { id: string; role: string; display_name: string; available_actions: string[] };
type RecordBody = { id: string; agr_reference: string; status: string; signing_order: string; current_signer_ids: string[]; available_actions: string[]; parties: Party[] };

describe('Signing order over REST', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let carol: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100', METHOD_STARTS_PER_WINDOW: '100' });
    alice = await t.signIn('alice-order@example.com');
    bob = await t.signIn('bob-order@example.com');
    carol = await t.signIn('carol-order@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  const invitationsTo = (address: string) => t.smtp.messages.filter((m) => m.to.includes(address) && m.subject.startsWith('You are invited to sign'));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 700));
  const party = (record: RecordBody, name: string) => record.parties.find((p) => p.display_name === name)!;

  async function submittedSequential(): Promise<RecordBody> {
    const parties = [
      { display_name: 'Bob', contact_point_value: 'bob-order@example.com' },
      { display_name: 'Carol', contact_point_value: 'carol-order@example.com' },
    ];
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ parties, signing_order: 'sequential' }) });
    expect(created.status).toBe(201);
    expect(created.body.signing_order).toBe('sequential');
    expect((await signWithEmailOtp(t, alice, 'alice-order@example.com', created.body.id)).status).toBe(200);
    const submitted = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
    expect(submitted.status).toBe(200);
    return submitted.body as RecordBody;
  }

  it('invites the parties one at a time in list order, and only the party whose turn it is signs', async () => {
    const record = await submittedSequential();
    const [bobRow, carolRow] = [party(record, 'Bob'), party(record, 'Carol')];
    expect(record.current_signer_ids).toEqual([bobRow.id]);

    // Both invitations would be written by the same commit: once Bob's arrives, Carol's would have too.
    await t.smtp.waitFor('bob-order@example.com', (m) => m.subject.startsWith('You are invited to sign'));
    await settle();
    expect(invitationsTo('bob-order@example.com')).toHaveLength(1);
    expect(invitationsTo('carol-order@example.com')).toHaveLength(0);

    // Carol's turn has not come: no sign action, a refusal naming whose turn it is, no resend.
    const carolView = await t.request('GET', `/api/v1/agreements/${record.id}`, { token: carol });
    expect(carolView.body.available_actions).not.toContain('sign');
    expect(carolView.body.available_actions).toContain('decline');
    const early = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution`, { token: carol });
    expect(early).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
    expect(JSON.stringify(early.body)).toContain("waiting for Bob's signature");
    const resend = await t.request('POST', `/api/v1/agreements/${record.id}/participants/${carolRow.id}/resend-invitation`, { token: alice });
    expect(resend).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
    expect(JSON.stringify(resend.body)).toContain('No invitation to resend yet');
    const aliceView = (await t.request('GET', `/api/v1/agreements/${record.id}`, { token: alice })).body as RecordBody;
    expect(aliceView.parties.find((p) => p.id === carolRow.id)!.available_actions).not.toContain('resend_invitation');
    expect(aliceView.parties.find((p) => p.id === bobRow.id)!.available_actions).toContain('resend_invitation');
    expect((await t.request('GET', `/api/v1/agreements/${record.id}`, { token: bob })).body.available_actions).toContain('sign');

    // Bob signs: the turn passes to Carol, whose invitation goes out exactly once.
    const bobSigned = await signWithEmailOtp(t, bob, 'bob-order@example.com', record.id);
    expect(bobSigned.status).toBe(200);
    expect(bobSigned.body).toMatchObject({ status: 'pending_confirmation', current_signer_ids: [carolRow.id] });
    const invitation = await t.smtp.waitFor('carol-order@example.com', (m) => m.subject.startsWith('You are invited to sign'));
    expect(invitation.text).toContain(`/records/${record.agr_reference}`);
    await settle();
    expect(invitationsTo('carol-order@example.com')).toHaveLength(1);
    expect(invitationsTo('bob-order@example.com')).toHaveLength(1);
    expect((await t.request('GET', `/api/v1/agreements/${record.id}`, { token: carol })).body.available_actions).toContain('sign');

    const carolSigned = await signWithEmailOtp(t, carol, 'carol-order@example.com', record.id);
    expect(carolSigned.status).toBe(200);
    expect(carolSigned.body).toMatchObject({ status: 'sealed', current_signer_ids: [] });
  });

  it('passes the turn on when the initiator goes on without a party who declined', async () => {
    const record = await submittedSequential();
    const [bobRow, carolRow] = [party(record, 'Bob'), party(record, 'Carol')];
    const before = invitationsTo('carol-order@example.com').length;
    expect((await t.request('POST', `/api/v1/agreements/${record.id}/decline`, { token: bob, body: { reason: 'Not now' } })).status).toBe(200);
    // A decline holds the turn until the initiator decides, as a decline does in parallel order.
    const held = await t.request('GET', `/api/v1/agreements/${record.id}`, { token: carol });
    expect(held.body).toMatchObject({ status: 'pending_confirmation', current_signer_ids: [] });
    expect(held.body.available_actions).not.toContain('sign');
    const onward = await t.request('POST', `/api/v1/agreements/${record.id}/participants/${bobRow.id}/complete-without`, { token: alice });
    expect(onward.status).toBe(200);
    expect(onward.body.current_signer_ids).toEqual([carolRow.id]);
    await t.smtp.waitFor('carol-order@example.com', () => invitationsTo('carol-order@example.com').length > before);
    const signed = await signWithEmailOtp(t, carol, 'carol-order@example.com', record.id);
    expect(signed.body.status).toBe('sealed');
  });

  it('keeps parallel order as before: everyone is invited at submission and may sign', async () => {
    const created = await t.request('POST', '/api/v1/agreements', {
      token: alice,
      body: agreementBody({ parties: [{ display_name: 'Bob', contact_point_value: 'bob-order@example.com' }, { display_name: 'Carol', contact_point_value: 'carol-order@example.com' }] }),
    });
    expect(created.body.signing_order).toBe('parallel');
    await signWithEmailOtp(t, alice, 'alice-order@example.com', created.body.id);
    const bobBefore = invitationsTo('bob-order@example.com').length;
    const carolBefore = invitationsTo('carol-order@example.com').length;
    const submitted = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
    expect(submitted.body.current_signer_ids).toHaveLength(2);
    await t.smtp.waitFor('carol-order@example.com', () => invitationsTo('carol-order@example.com').length > carolBefore);
    await t.smtp.waitFor('bob-order@example.com', () => invitationsTo('bob-order@example.com').length > bobBefore);
    expect((await signWithEmailOtp(t, carol, 'carol-order@example.com', created.body.id)).status).toBe(200);
    expect((await signWithEmailOtp(t, bob, 'bob-order@example.com', created.body.id)).body.status).toBe('sealed');
  });
});
