import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

describe('Record lifecycle over REST', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100', METHOD_STARTS_PER_WINDOW: '100' });
    alice = await t.signIn('alice@example.com');
    bob = await t.signIn('bob@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  async function signedDraft(overrides: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    const signed = await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id);
    expect(signed.status).toBe(200);
    return created.body as { id: string; agr_reference: string };
  }

  async function submitted(overrides: Record<string, unknown> = {}) {
    const record = await signedDraft(overrides);
    const response = await t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice });
    expect(response.status).toBe(200);
    return record;
  }

  it('refuses to submit a draft the initiator has not signed', async () => {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const response = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
    expect(response).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });

  it('refuses to submit an agreement without another party', async () => {
    const record = await signedDraft({ parties: [] });
    const response = await t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'parties']);
  });

  it('submits, mails the invitation, and reaches sealed when the last party signs', async () => {
    const record = await signedDraft({ lapse_days: 3 });
    const before = t.smtp.messages.length;
    const response = await t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('pending_confirmation');
    const lapse = new Date(response.body.expires_at).getTime() - Date.now();
    expect(lapse).toBeGreaterThan(2.9 * 86_400_000);
    expect(lapse).toBeLessThan(3.1 * 86_400_000);

    const invitation = await t.smtp.waitFor('bob@example.com', (m) => t.smtp.messages.indexOf(m) >= before);
    expect(invitation.subject).toBe('You are invited to sign “Garden sharing”');
    expect(invitation.text).toContain(`/records/${record.agr_reference}`);

    const again = await t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice });
    expect(again).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });

    // A dashboard sees where each participant stands, without method details.
    const states = (body: { parties: { role: string; signature_state: unknown }[] }) => body.parties.map((p) => [p.role, p.signature_state]);
    expect(states(response.body)).toEqual([
      ['initiator', { status: 'finalized', satisfied_method_count: 1, can_finalize: false }],
      ['party', { status: 'not_started', satisfied_method_count: 0, can_finalize: false }],
    ]);
    await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution`, { token: bob });
    const watching = await t.request('GET', `/api/v1/agreements/${record.id}`, { token: alice });
    expect(states(watching.body)[1]).toEqual(['party', { status: 'in_progress', satisfied_method_count: 0, can_finalize: false }]);

    const finalized = await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    expect(finalized.status).toBe(200);
    expect(finalized.body).toMatchObject({ status: 'sealed', sealed_at: expect.any(String) });
    const bobRow = finalized.body.parties.find((p: { role: string }) => p.role === 'party');
    expect(bobRow.confirmed_version).toBe(1);
  });

  it('seals a declaration without witnesses as soon as it is submitted', async () => {
    const created = await t.request('POST', '/api/v1/declarations', { token: alice, body: agreementBody({ parties: undefined }) });
    await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id);
    const response = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
    expect(response.body.status).toBe('sealed');
  });

  it('lets a party decline with a reason, and not the initiator', async () => {
    const record = await submitted();
    const byInitiator = await t.request('POST', `/api/v1/agreements/${record.id}/decline`, { token: alice, body: {} });
    expect(byInitiator).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    const tooLong = await t.request('POST', `/api/v1/agreements/${record.id}/decline`, { token: bob, body: { reason: 'x'.repeat(501) } });
    expect(tooLong.status).toBe(422);
    const declined = await t.request('POST', `/api/v1/agreements/${record.id}/decline`, { token: bob, body: { reason: 'Not this year' } });
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe('declined');
    const row = declined.body.parties.find((p: { role: string }) => p.role === 'party');
    expect(row).toMatchObject({ declined_at: expect.any(String), declined_reason: 'Not this year' });
    const signAfter = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution`, { token: alice });
    expect(signAfter.status).toBe(409);
  });

  it('lets a witness decline without ending the record', async () => {
    const carol = await t.signIn('carol@example.com');
    const record = await submitted({
      type: 'witnessed_agreement',
      witnesses: [{ display_name: 'Carol', contact_point_value: 'carol@example.com' }],
    });
    const declined = await t.request('POST', `/api/v1/agreements/${record.id}/decline`, { token: carol, body: { reason: 'Away' } });
    expect(declined.body.status).toBe('pending_confirmation');
    expect(declined.body.witness_summary).toMatchObject({ active: 0, declined: 1 });
  });

  it('lets the initiator rescind a pending record, but not a sealed one', async () => {
    const record = await submitted();
    const byBob = await t.request('POST', `/api/v1/agreements/${record.id}/rescind`, { token: bob });
    expect(byBob.status).toBe(403);
    const rescinded = await t.request('POST', `/api/v1/agreements/${record.id}/rescind`, { token: alice });
    expect(rescinded.body.status).toBe('rescinded');

    const sealed = await submitted();
    await signWithEmailOtp(t, bob, 'bob@example.com', sealed.id);
    const late = await t.request('POST', `/api/v1/agreements/${sealed.id}/rescind`, { token: alice });
    expect(late).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });

  it('cancels a draft in place', async () => {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const byParty = await t.request('POST', `/api/v1/agreements/${created.body.id}/cancel`, { token: bob, body: {} });
    expect(byParty).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    const cancelled = await t.request('POST', `/api/v1/agreements/${created.body.id}/cancel`, { token: alice, body: {} });
    expect(cancelled.status).toBe(201);
    expect(cancelled.body.status).toBe('cancelled_draft');
    const edit = await t.request('PATCH', `/api/v1/agreements/${created.body.id}`, { token: alice, body: { title: 'Too late' } });
    expect(edit).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });

  it('lets exactly one of two racing submits win', async () => {
    const record = await signedDraft();
    const [first, second] = await Promise.all([
      t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice }),
      t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    // Mail goes out from the outbox: send everything due, then count.
    await t.app.services.mail.deliverDue();
    await t.smtp.waitFor('bob@example.com', (m) => m.text.includes(record.agr_reference) && m.subject.startsWith('You are invited'));
    const invitations = t.smtp.messages.filter((m) => m.text.includes(record.agr_reference) && m.subject.startsWith('You are invited'));
    expect(invitations).toHaveLength(1);
  });

  it('needs the cancel scope for declines and rescission', async () => {
    const record = await submitted();
    const key = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['create', 'retrieve', 'verify', 'amend'] } });
    const refused = await t.request('POST', `/api/v1/agreements/${record.id}/rescind`, { apiKey: key.body.key });
    expect(refused).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['cancel'] } });
  });
});
