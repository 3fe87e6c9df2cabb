import { randomUUID } from 'node:crypto';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

type Party = { id: string; role: string; display_name: string | null; contact_point_value: string | null; waived_at: string | null; available_actions: string[] };
type RecordBody = { id: string; agr_reference: string; status: string; parties: Party[]; available_actions: string[] };

const NEW_TERMS = 'We agree to share the garden equally and to take turns watering it every second day.';

/**
 * What REST adds to the record's lifecycle: each route reaches its move, with its scope, status
 * codes, error codes and body shapes. The rules themselves (which move from which status, by whom,
 * leading where) are the service-level tests' (test/integration/lifecycle-table.test.ts,
 * participant-moves, counter-proposals, amendments).
 */
describe('Record lifecycle over REST', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let carol: string;
  let mallory: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100', METHOD_STARTS_PER_WINDOW: '100', INVITATION_RESENDS_PER_HOUR: '1' });
    [alice, bob, carol, mallory] = (await Promise.all(['alice', 'bob', 'carol', 'mallory'].map((name) => t.signIn(`${name}@example.com`)))) as [string, string, string, string];
  });
  afterAll(async () => {
    await t.stop();
  });

  const agreement = (id: string, rest = '') => `/api/v1/agreements/${id}${rest}`;
  const BOB = { display_name: 'Bob', contact_point_value: 'bob@example.com' };
  const CAROL = { display_name: 'Carol', contact_point_value: 'carol@example.com' };
  const rowOf = (record: RecordBody, email: string) => record.parties.find((p) => p.contact_point_value === email)!;
  const apiKey = async (token: string, scopes: string[]) => (await t.request('POST', '/api/v1/api-keys', { token, body: { scopes } })).body.key as string;

  async function signedDraft(overrides: Record<string, unknown> = {}): Promise<RecordBody> {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    expect((await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id)).status).toBe(200);
    return created.body;
  }

  async function submitted(overrides: Record<string, unknown> = {}): Promise<RecordBody> {
    const record = await signedDraft(overrides);
    const response = await t.request('POST', agreement(record.id, '/submit'), { token: alice });
    expect(response.status).toBe(200);
    return response.body;
  }

  it('submits, invites and seals on the last signature, with what each answer carries', async () => {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ lapse_days: 3 }) });
    expect(created).toMatchObject({ status: 201, body: { status: 'draft', available_actions: ['edit', 'cancel_draft', 'sign'] } });
    const record = created.body as RecordBody;
    const unsigned = await t.request('POST', agreement(record.id, '/submit'), { token: alice });
    expect(unsigned).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });

    await signWithEmailOtp(t, alice, 'alice@example.com', record.id);
    const before = t.smtp.messages.length;
    const response = await t.request('POST', agreement(record.id, '/submit'), { token: alice });
    expect(response).toMatchObject({ status: 200, body: { status: 'pending_confirmation', available_actions: ['rescind'] } });
    const lapse = new Date(response.body.expires_at).getTime() - Date.now();
    expect(lapse).toBeGreaterThan(2.9 * 86_400_000);
    expect(lapse).toBeLessThan(3.1 * 86_400_000);
    const invitation = await t.smtp.waitFor('bob@example.com', (m) => t.smtp.messages.indexOf(m) >= before);
    expect(invitation.subject).toBe('You are invited to sign “Garden sharing”');
    expect(invitation.text).toContain(`/records/${record.agr_reference}`);

    // A dashboard sees where each participant stands, without method details.
    const states = (body: { parties: { role: string; signature_state: unknown }[] }) => body.parties.map((p) => [p.role, p.signature_state]);
    expect(states(response.body)).toEqual([
      ['initiator', { status: 'finalized', satisfied_method_count: 1, can_finalize: false }],
      ['party', { status: 'not_started', satisfied_method_count: 0, can_finalize: false }],
    ]);
    await t.request('POST', agreement(record.id, '/signature-execution'), { token: bob });
    const watching = await t.request('GET', agreement(record.id), { token: alice });
    expect(states(watching.body)[1]).toEqual(['party', { status: 'in_progress', satisfied_method_count: 0, can_finalize: false }]);
    expect((await t.request('GET', agreement(record.id), { token: bob })).body.available_actions).toEqual(['sign', 'decline', 'propose_counter']);

    const finalized = await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    expect(finalized).toMatchObject({ status: 200, body: { status: 'sealed', sealed_at: expect.any(String) } });
    expect(rowOf(finalized.body, 'bob@example.com')).toMatchObject({ confirmed_version: 1 });
  });

  it('names the field a guard or an input refuses, and answers the other refusals with their codes', async () => {
    const lone = await signedDraft({ parties: [] });
    const noParty = await t.request('POST', agreement(lone.id, '/submit'), { token: alice });
    expect(noParty.status).toBe(422);
    expect(noParty.body.detail[0].loc).toEqual(['body', 'parties']);

    const record = await submitted();
    const byInitiator = await t.request('POST', agreement(record.id, '/decline'), { token: alice, body: {} });
    expect(byInitiator).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    const tooLong = await t.request('POST', agreement(record.id, '/decline'), { token: bob, body: { reason: 'x'.repeat(501) } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail[0].loc).toEqual(['body', 'reason']);
    const stranger = await t.request('POST', agreement(record.id, '/rescind'), { token: mallory });
    expect(stranger).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
    const keyWithoutCancel = await apiKey(alice, ['create', 'retrieve', 'verify', 'amend']);
    const refused = await t.request('POST', agreement(record.id, '/rescind'), { apiKey: keyWithoutCancel });
    expect(refused).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['cancel'] } });

    const rescinded = await t.request('POST', agreement(record.id, '/rescind'), { token: alice });
    expect(rescinded).toMatchObject({ status: 200, body: { status: 'rescinded', available_actions: [] } });
    const declined = await t.request('POST', agreement(record.id, '/decline'), { token: bob, body: { reason: 'Too late' } });
    expect(declined).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });

  it('cancels a draft in place, answering 201 as a cancellation does', async () => {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    const cancelled = await t.request('POST', agreement(created.body.id, '/cancel'), { token: alice, body: {} });
    expect(cancelled).toMatchObject({ status: 201, body: { id: created.body.id, status: 'cancelled_draft', supersedes_agr_id: null } });
    const edit = await t.request('PATCH', agreement(created.body.id), { token: alice, body: { title: 'Too late' } });
    expect(edit).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });

  it('routes each participant move to its own move, by participant id, with its scope', async () => {
    const record = await submitted({ type: 'witnessed_agreement', parties: [BOB], witnesses: [CAROL] });
    const [bobRow, carolRow] = [rowOf(record, 'bob@example.com'), rowOf(record, 'carol@example.com')];
    const declined = await t.request('POST', agreement(record.id, '/decline'), { token: carol, body: { reason: 'Away' } });
    expect(declined).toMatchObject({ status: 200, body: { status: 'pending_confirmation', witness_summary: { active: 0, declined: 1 } } });
    expect(rowOf(declined.body, 'carol@example.com')).toMatchObject({ declined_at: expect.any(String), declined_reason: 'Away' });
    expect(rowOf((await t.request('GET', agreement(record.id), { token: alice })).body, 'carol@example.com').available_actions).toEqual(['waive_witness', 'replace_witness']);

    // Each route is its own move: the others refuse Carol, each for its own reason.
    const on = (route: string, id = carolRow.id) => agreement(record.id, route.replace('{id}', id));
    expect(await t.request('POST', on('/co-notarizers/{id}/waive'), { token: alice })).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
    expect(await t.request('POST', on('/participants/{id}/complete-without'), { token: alice })).toMatchObject({ status: 409, body: { error_code: 'conflict' } });
    expect(await t.request('POST', on('/participants/{id}/resend-invitation'), { token: alice })).toMatchObject({ status: 409, body: { error_code: 'conflict' } });
    const badWitness = await t.request('POST', on('/witnesses/{id}/replace'), { token: alice, body: { display_name: 'Dave', contact_point_value: 'not-an-email' } });
    expect(badWitness.status).toBe(422);
    expect(await t.request('POST', on('/witnesses/{id}/waive'), { token: bob })).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    expect(await t.request('POST', on('/witnesses/{id}/waive'), { token: mallory })).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
    for (const route of ['/participants/{id}/complete-without', '/participants/{id}/resend-invitation', '/witnesses/{id}/waive', '/co-notarizers/{id}/waive']) {
      expect([route, (await t.request('POST', on(route, randomUUID()), { token: alice })).body.error_code]).toEqual([route, 'not_found']);
    }
    const replaceUnknown = await t.request('POST', on('/witnesses/{id}/replace', randomUUID()), { token: alice, body: { display_name: 'Dave', contact_point_value: 'dave@example.com' } });
    expect(replaceUnknown).toMatchObject({ status: 404, body: { error_code: 'not_found' } });

    // Resends and replacements need amend; waivers need cancel.
    const [cancelOnly, amendOnly] = [await apiKey(alice, ['cancel']), await apiKey(alice, ['amend'])];
    const amendNeeded = { status: 403, body: { error_code: 'missing_scope', required_scopes: ['amend'] } };
    expect(await t.request('POST', on('/participants/{id}/resend-invitation', bobRow.id), { apiKey: cancelOnly })).toMatchObject(amendNeeded);
    expect(await t.request('POST', on('/witnesses/{id}/replace'), { apiKey: cancelOnly, body: { display_name: 'Dave', contact_point_value: 'dave@example.com' } })).toMatchObject(amendNeeded);
    expect(await t.request('POST', on('/witnesses/{id}/waive'), { apiKey: amendOnly })).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['cancel'] } });

    const replaced = await t.request('POST', on('/witnesses/{id}/replace'), { apiKey: amendOnly, body: { display_name: 'Dave', contact_point_value: 'dave@example.com' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.parties.map((p: Party) => [p.role, p.contact_point_value])).toEqual([
      ['initiator', 'alice@example.com'],
      ['party', 'bob@example.com'],
      ['witness', 'dave@example.com'],
    ]);
    const daveRow = rowOf(replaced.body, 'dave@example.com');
    await t.request('POST', agreement(record.id, '/decline'), { token: await t.signIn('dave@example.com'), body: {} });
    const waived = await t.request('POST', on('/witnesses/{id}/waive', daveRow.id), { apiKey: cancelOnly });
    expect(waived.status).toBe(200);
    expect(rowOf(waived.body, 'dave@example.com').waived_at).toEqual(expect.any(String));

    // One resend an hour here: the second is rate-limited, with when to try again.
    expect((await t.request('POST', on('/participants/{id}/resend-invitation', bobRow.id), { apiKey: amendOnly })).status).toBe(200);
    const again = await t.request('POST', on('/participants/{id}/resend-invitation', bobRow.id), { token: alice });
    expect(again).toMatchObject({ status: 429, body: { error_code: 'rate_limited', retry_after_seconds: expect.any(Number) } });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  describe('counter-proposals', () => {
    it('puts a counter under review and resolves it, with what each answer carries', async () => {
      const record = await submitted({ parties: [BOB, CAROL] });
      const points = await t.request('GET', '/api/v1/identity/contact-points', { token: bob });
      const bobPoint = points.body.contact_points.find((p: { value: string }) => p.value === 'bob@example.com');
      const proposed = await t.request('POST', agreement(record.id, '/counter'), { token: bob, body: { proposed_body: NEW_TERMS, raw_input: 'every second day please' } });
      expect(proposed.status).toBe(201);
      expect(proposed.body).toEqual({
        id: expect.any(String),
        agreement_id: record.id,
        status: 'pending',
        proposed_by_contact_point_id: bobPoint.id,
        raw_input: 'every second day please',
        assisted_text: null,
        proposed_body: NEW_TERMS,
        diff_summary: expect.any(String),
        resolved_body: null,
        created_at: expect.any(String),
        resolved_at: null,
      });
      const read = await t.request('GET', agreement(record.id), { token: alice });
      expect(read.body).toMatchObject({
        status: 'counter_under_review',
        available_actions: ['resolve_counter', 'rescind'],
        active_counter: { id: proposed.body.id, status: 'pending', proposed_body: NEW_TERMS, proposed_by_contact_point_id: bobPoint.id },
      });
      const second = await t.request('POST', agreement(record.id, '/counter'), { token: carol, body: { proposed_body: `${NEW_TERMS} Weekends too.` } });
      expect(second).toMatchObject({ status: 409, body: { error_code: 'counter_active' } });

      const counter = agreement(record.id, `/counter/${proposed.body.id}`);
      expect(await t.request('GET', counter, { token: carol })).toMatchObject({ status: 200, body: { id: proposed.body.id, status: 'pending' } });
      expect(await t.request('GET', counter, { token: mallory })).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
      expect(await t.request('POST', `${counter}/resolve`, { token: bob, body: { decision: 'accept' } })).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
      const partial = await t.request('POST', `${counter}/resolve`, { token: alice, body: { decision: 'partially_accept' } });
      expect(partial.status).toBe(422);
      expect(partial.body.detail.flatMap((issue: { loc: string[] }) => issue.loc)).toContain('resolved_body');
      // Scopes are exact: a key with amend alone resolves, and the answer (the record) needs no retrieve.
      const accepted = await t.request('POST', `${counter}/resolve`, { apiKey: await apiKey(alice, ['amend']), body: { decision: 'accept' } });
      expect(accepted).toMatchObject({ status: 200, body: { status: 'pending_confirmation', body: NEW_TERMS, current_version: 2, active_counter: null } });
      expect(await t.request('GET', counter, { token: bob })).toMatchObject({ body: { status: 'accepted', resolved_at: expect.any(String) } });
    });

    it('withdraws a counter, and needs the amend scope to propose one', async () => {
      const record = await submitted();
      const keyWithoutAmend = await apiKey(bob, ['create', 'retrieve', 'verify', 'cancel']);
      const refused = await t.request('POST', agreement(record.id, '/counter'), { apiKey: keyWithoutAmend, body: { proposed_body: NEW_TERMS } });
      expect(refused).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['amend'] } });
      const proposed = await t.request('POST', agreement(record.id, '/counter'), { apiKey: await apiKey(bob, ['amend']), body: { proposed_body: NEW_TERMS } });
      expect(proposed.status).toBe(201);
      const withdrawn = await t.request('POST', agreement(record.id, `/counter/${proposed.body.id}/withdraw`), { token: bob });
      expect(withdrawn).toMatchObject({ status: 200, body: { status: 'pending_confirmation', active_counter: null, current_version: 1 } });
    });
  });

  describe('amendments and mutual cancellations', () => {
    it('drafts an amendment and a mutual cancellation of a sealed record (201), each with its own scope', async () => {
      const sealed = await submitted();
      expect((await signWithEmailOtp(t, bob, 'bob@example.com', sealed.id)).body.status).toBe('sealed');
      const [cancelOnly, amendOnly] = [await apiKey(alice, ['retrieve', 'cancel']), await apiKey(alice, ['retrieve', 'amend'])];
      expect(await t.request('POST', agreement(sealed.id, '/amend'), { apiKey: cancelOnly, body: { body: NEW_TERMS } })).toMatchObject({
        status: 403,
        body: { error_code: 'missing_scope', required_scopes: ['amend'] },
      });
      expect(await t.request('POST', agreement(sealed.id, '/cancel'), { apiKey: amendOnly, body: {} })).toMatchObject({
        status: 403,
        body: { error_code: 'missing_scope', required_scopes: ['cancel'] },
      });
      const locs = (response: { body: { detail: { loc: (string | number)[] }[] } }) => response.body.detail.map((issue) => issue.loc.join('.'));
      const short = await t.request('POST', agreement(sealed.id, '/amend'), { token: alice, body: { body: 'Too short' } });
      expect(short.status).toBe(422);
      expect(locs(short)).toContain('body.body');
      const longNote = await t.request('POST', agreement(sealed.id, '/amend'), { token: alice, body: { body: NEW_TERMS, amendment_note: 'n'.repeat(501) } });
      expect(longNote.status).toBe(422);
      expect(locs(longNote)).toEqual(['body.amendment_note']);

      // Scopes are exact: amend alone amends, and the answer (the new draft) needs no retrieve.
      const amended = await t.request('POST', agreement(sealed.id, '/amend'), { apiKey: await apiKey(alice, ['amend']), body: { body: NEW_TERMS, amendment_note: 'Watering more often in summer' } });
      expect(amended).toMatchObject({
        status: 201,
        body: { status: 'draft', body: NEW_TERMS, supersedes_agr_id: sealed.id, superseded_by_agr_id: null, metadata: { kind: 'amendment', amendment_note: 'Watering more often in summer' } },
      });
      expect((await t.request('POST', agreement(amended.body.id, '/cancel'), { token: alice, body: {} })).status).toBe(201);
      const cancellation = await t.request('POST', agreement(sealed.id, '/cancel'), { apiKey: await apiKey(alice, ['cancel']), body: { reason: 'We moved away' } });
      expect(cancellation).toMatchObject({ status: 201, body: { status: 'draft', supersedes_agr_id: sealed.id, metadata: { kind: 'mutual_cancellation' } } });
      expect(cancellation.body.body).toContain('We moved away');
    });
  });
});
