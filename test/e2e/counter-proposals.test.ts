import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

const ORIGINAL_BODY = 'We agree to share the garden equally and to take turns watering it every week.';
const PROPOSED_BODY = 'We agree to share the garden equally and to take turns watering it every second day.';
const RESOLVED_BODY = 'We agree to share the garden equally and to take turns watering it twice a week.';

type Party = { id: string; role: string; contact_point_value: string | null; confirmed_version: number | null };

describe('Counter-proposals over REST', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let carol: string;
  let mallory: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '200', METHOD_STARTS_PER_WINDOW: '200' });
    alice = await t.signIn('alice@example.com');
    bob = await t.signIn('bob@example.com');
    carol = await t.signIn('carol@example.com');
    mallory = await t.signIn('mallory@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  const agreement = (id: string, rest = '') => `/api/v1/agreements/${id}${rest}`;

  /** Alice's agreement, signed by her and submitted: pending confirmation by the other parties. */
  async function pendingAgreement(overrides: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    const signed = await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id);
    expect(signed.status).toBe(200);
    const submitted = await t.request('POST', agreement(created.body.id, '/submit'), { token: alice });
    expect(submitted.body.status).toBe('pending_confirmation');
    return submitted.body as { id: string; agr_reference: string; body_hash: string };
  }

  /** Bob proposes a new body; returns the CounterProposalResponse. */
  async function bobProposes(recordId: string, body: Record<string, unknown> = { proposed_body: PROPOSED_BODY }) {
    const response = await t.request('POST', agreement(recordId, '/counter'), { token: bob, body });
    expect(response.status).toBe(201);
    return response.body as { id: string };
  }

  const withCarol = {
    parties: [
      { display_name: 'Bob', contact_point_value: 'bob@example.com' },
      { display_name: 'Carol', contact_point_value: 'carol@example.com' },
    ],
  };

  it("puts a party's counter-proposal under review and shows it as the active counter", async () => {
    const record = await pendingAgreement();
    const points = await t.request('GET', '/api/v1/identity/contact-points', { token: bob });
    const bobPoint = points.body.contact_points.find((p: { value: string }) => p.value === 'bob@example.com');

    const proposed = await t.request('POST', agreement(record.id, '/counter'), {
      token: bob,
      body: { proposed_body: PROPOSED_BODY, raw_input: 'every second day please' },
    });
    expect(proposed.status).toBe(201);
    expect(proposed.body).toEqual({
      id: expect.any(String),
      agreement_id: record.id,
      status: 'pending',
      proposed_by_contact_point_id: bobPoint.id,
      raw_input: 'every second day please',
      assisted_text: null,
      proposed_body: PROPOSED_BODY,
      diff_summary: expect.any(String),
      resolved_body: null,
      created_at: expect.any(String),
      resolved_at: null,
    });

    const read = await t.request('GET', agreement(record.id), { token: alice });
    expect(read.body.status).toBe('counter_under_review');
    expect(read.body.body).toBe(ORIGINAL_BODY);
    expect(read.body.active_counter).toMatchObject({
      id: proposed.body.id,
      status: 'pending',
      proposed_body: PROPOSED_BODY,
      diff_summary: proposed.body.diff_summary,
      proposed_by_contact_point_id: bobPoint.id,
    });
  });

  it('refuses a second counter-proposal while one is under review', async () => {
    const record = await pendingAgreement(withCarol);
    await bobProposes(record.id);
    const second = await t.request('POST', agreement(record.id, '/counter'), {
      token: carol,
      body: { proposed_body: RESOLVED_BODY },
    });
    expect(second).toMatchObject({ status: 409, body: { error_code: 'counter_active' } });
  });

  it('lets exactly one of two racing counter-proposals through', async () => {
    const record = await pendingAgreement(withCarol);
    const [byBob, byCarol] = await Promise.all([
      t.request('POST', agreement(record.id, '/counter'), { token: bob, body: { proposed_body: PROPOSED_BODY } }),
      t.request('POST', agreement(record.id, '/counter'), { token: carol, body: { proposed_body: RESOLVED_BODY } }),
    ]);
    expect([byBob.status, byCarol.status].sort()).toEqual([201, 409]);
    const loser = byBob.status === 409 ? byBob : byCarol;
    expect(loser.body.error_code).toBe('counter_active');
    const read = await t.request('GET', agreement(record.id), { token: alice });
    expect(read.body.active_counter.id).toBe((byBob.status === 201 ? byBob : byCarol).body.id);
  });

  it('does not let the initiator counter their own record', async () => {
    const record = await pendingAgreement();
    const response = await t.request('POST', agreement(record.id, '/counter'), { token: alice, body: { proposed_body: PROPOSED_BODY } });
    expect(response).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
  });

  it('lets every participant read the counter, and answers a stranger as if it did not exist', async () => {
    const record = await pendingAgreement(withCarol);
    const counter = await bobProposes(record.id);
    for (const token of [alice, bob, carol]) {
      const read = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token });
      expect(read).toMatchObject({ status: 200, body: { id: counter.id, status: 'pending', proposed_body: PROPOSED_BODY } });
    }
    const stranger = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: mallory });
    expect(stranger).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
  });

  it('lets only the initiator resolve and only the proposer withdraw', async () => {
    const record = await pendingAgreement(withCarol);
    const counter = await bobProposes(record.id);

    const resolvedByBob = await t.request('POST', agreement(record.id, `/counter/${counter.id}/resolve`), { token: bob, body: { decision: 'accept' } });
    expect(resolvedByBob).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    const withdrawnByAlice = await t.request('POST', agreement(record.id, `/counter/${counter.id}/withdraw`), { token: alice });
    expect(withdrawnByAlice).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    const withdrawnByCarol = await t.request('POST', agreement(record.id, `/counter/${counter.id}/withdraw`), { token: carol });
    expect(withdrawnByCarol).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });

    const still = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: alice });
    expect(still.body.status).toBe('pending');
  });

  it('returns the record to pending confirmation when the proposer withdraws', async () => {
    const record = await pendingAgreement();
    const counter = await bobProposes(record.id);

    const withdrawn = await t.request('POST', agreement(record.id, `/counter/${counter.id}/withdraw`), { token: bob });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({ status: 'pending_confirmation', active_counter: null, body: ORIGINAL_BODY, current_version: 1 });

    const read = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: bob });
    expect(read.body).toMatchObject({ status: 'withdrawn', resolved_at: expect.any(String), resolved_body: null });

    const again = await t.request('POST', agreement(record.id, `/counter/${counter.id}/withdraw`), { token: bob });
    expect(again.status).toBe(409);
  });

  it('keeps the body when the initiator rejects', async () => {
    const record = await pendingAgreement();
    const counter = await bobProposes(record.id);

    const rejected = await t.request('POST', agreement(record.id, `/counter/${counter.id}/resolve`), { token: alice, body: { decision: 'reject' } });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: 'pending_confirmation',
      body: ORIGINAL_BODY,
      body_hash: record.body_hash,
      current_version: 1,
      active_counter: null,
    });
    expect(rejected.body.initiator_signature.status).toBe('finalized');

    const read = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: bob });
    expect(read.body).toMatchObject({ status: 'rejected', resolved_at: expect.any(String) });
  });

  it('starts version 2 when the initiator accepts, and resets everyone’s signature work', async () => {
    const record = await pendingAgreement();
    // Bob gets halfway through signing version 1 before he proposes a change.
    const execution = agreement(record.id, '/signature-execution');
    await t.request('POST', execution, { token: bob });
    const before = t.smtp.messages.length;
    await t.request('POST', `${execution}/methods/email_otp/start`, { token: bob, body: {} });
    const code = await t.smtp.codeFor('bob@example.com', before);
    const satisfied = await t.request('POST', `${execution}/methods/email_otp/submit`, { token: bob, body: { code } });
    expect(satisfied.body).toMatchObject({ record_version: 1, can_finalize: true });

    const counter = await bobProposes(record.id);
    const accepted = await t.request('POST', agreement(record.id, `/counter/${counter.id}/resolve`), { token: alice, body: { decision: 'accept' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'pending_confirmation', body: PROPOSED_BODY, current_version: 2, active_counter: null });
    expect(accepted.body.body_hash).not.toBe(record.body_hash);
    expect(accepted.body.initiator_signature.status).not.toBe('finalized');
    const initiatorRow = accepted.body.parties.find((p: Party) => p.role === 'initiator');
    expect(initiatorRow.confirmed_version).toBe(1);

    const counterRead = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: alice });
    expect(counterRead.body).toMatchObject({ status: 'accepted', resolved_at: expect.any(String) });

    const aliceExecution = await t.request('POST', execution, { token: alice });
    expect(aliceExecution.body).toMatchObject({ record_version: 2, satisfied_method_count: 0, can_finalize: false, status: 'in_progress' });
    const bobExecution = await t.request('POST', execution, { token: bob });
    expect(bobExecution.body).toMatchObject({ record_version: 2, satisfied_method_count: 0, can_finalize: false });
  });

  it('needs the resolved body for a partial acceptance, and adopts it', async () => {
    const record = await pendingAgreement();
    const counter = await bobProposes(record.id);
    const resolve = agreement(record.id, `/counter/${counter.id}/resolve`);

    const missing = await t.request('POST', resolve, { token: alice, body: { decision: 'partially_accept' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.flatMap((issue: { loc: string[] }) => issue.loc)).toContain('resolved_body');

    const partial = await t.request('POST', resolve, { token: alice, body: { decision: 'partially_accept', resolved_body: RESOLVED_BODY } });
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ status: 'pending_confirmation', body: RESOLVED_BODY, current_version: 2 });

    const read = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: bob });
    expect(read.body).toMatchObject({ status: 'partially_accepted', proposed_body: PROPOSED_BODY, resolved_body: RESOLVED_BODY });
  });

  it('lets exactly one of two racing resolutions win', async () => {
    const record = await pendingAgreement();
    const counter = await bobProposes(record.id);
    const resolve = agreement(record.id, `/counter/${counter.id}/resolve`);
    const [first, second] = await Promise.all([
      t.request('POST', resolve, { token: alice, body: { decision: 'accept' } }),
      t.request('POST', resolve, { token: alice, body: { decision: 'reject' } }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const read = await t.request('GET', agreement(record.id), { token: alice });
    const winner = first.status === 200 ? 'accept' : 'reject';
    expect(read.body.current_version).toBe(winner === 'accept' ? 2 : 1);
  });

  it('needs the amend scope to propose a counter', async () => {
    const record = await pendingAgreement();
    const key = await t.request('POST', '/api/v1/api-keys', { token: bob, body: { scopes: ['create', 'retrieve', 'verify', 'cancel'] } });
    const refused = await t.request('POST', agreement(record.id, '/counter'), { apiKey: key.body.key, body: { proposed_body: PROPOSED_BODY } });
    expect(refused).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['amend'] } });

    const withAmend = await t.request('POST', '/api/v1/api-keys', { token: bob, body: { scopes: ['amend'] } });
    const allowed = await t.request('POST', agreement(record.id, '/counter'), { apiKey: withAmend.body.key, body: { proposed_body: PROPOSED_BODY } });
    expect(allowed.status).toBe(201);
  });

  it('withdraws the counter of a proposer who declines, and seals once the initiator completes without them', async () => {
    const record = await pendingAgreement(withCarol);
    await signWithEmailOtp(t, carol, 'carol@example.com', record.id);
    const counter = await bobProposes(record.id);
    const declined = await t.request('POST', agreement(record.id, '/decline'), { token: bob, body: {} });
    expect(declined.body).toMatchObject({ status: 'pending_confirmation', active_counter: null });
    const read = await t.request('GET', agreement(record.id, `/counter/${counter.id}`), { token: alice });
    expect(read.body.status).toBe('withdrawn');
    const bobRow = declined.body.parties.find((p: Party) => p.contact_point_value === 'bob@example.com');
    const completed = await t.request('POST', agreement(record.id, `/participants/${bobRow.id}/complete-without`), { token: alice });
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ status: 'sealed', current_version: 1 });
  });

  it('returns to pending after a rejection, and the last signature then seals', async () => {
    const record = await pendingAgreement(withCarol);
    await signWithEmailOtp(t, carol, 'carol@example.com', record.id);
    const counter = await bobProposes(record.id);
    // Bob signs the current version after all; rejecting his counter leaves everyone signed.
    const rejectedFirst = await t.request('POST', agreement(record.id, `/counter/${counter.id}/resolve`), { token: alice, body: { decision: 'reject' } });
    expect(rejectedFirst.body.status).toBe('pending_confirmation');
    const signed = await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    expect(signed.body.status).toBe('sealed');
  });

  // Scopes are exact: answering with the changed record must not need `retrieve` as well.
  it('lets an API key with only the amend scope resolve a counter', async () => {
    const record = await pendingAgreement();
    const counter = await bobProposes(record.id);
    const amendOnly = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['amend'] } });
    const resolved = await t.request('POST', agreement(record.id, `/counter/${counter.id}/resolve`), {
      apiKey: amendOnly.body.key,
      body: { decision: 'accept' },
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ body: PROPOSED_BODY, current_version: 2 });
  });

  it('seals the accepted version once the initiator and the party both sign it', async () => {
    const record = await pendingAgreement();
    const counter = await bobProposes(record.id);
    const accepted = await t.request('POST', agreement(record.id, `/counter/${counter.id}/resolve`), { token: alice, body: { decision: 'accept' } });
    expect(accepted.body.current_version).toBe(2);

    const aliceSigned = await signWithEmailOtp(t, alice, 'alice@example.com', record.id);
    expect(aliceSigned.status).toBe(200);
    expect(aliceSigned.body.status).toBe('pending_confirmation');
    expect(aliceSigned.body.initiator_signature).toMatchObject({ status: 'finalized', confirmed_version: 2 });

    const bobSigned = await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    expect(bobSigned.status).toBe(200);
    expect(bobSigned.body).toMatchObject({ status: 'sealed', body: PROPOSED_BODY, current_version: 2, sealed_at: expect.any(String) });
    expect(bobSigned.body.parties.map((p: Party) => p.confirmed_version)).toEqual([2, 2]);
  });
});
