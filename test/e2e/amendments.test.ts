import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

const AMENDED_BODY = 'We agree to share the garden equally and to take turns watering it every second day.';

type Party = { id: string; role: string; contact_point_value: string | null };
type RecordBody = {
  id: string;
  agr_reference: string;
  status: string;
  body: string;
  parties: Party[];
  metadata: Record<string, unknown>;
  supersedes_agr_id: string | null;
  superseded_by_agr_id: string | null;
};

describe('Amendments and mutual cancellations over REST', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let mallory: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '200', METHOD_STARTS_PER_WINDOW: '200' });
    alice = await t.signIn('alice@example.com');
    bob = await t.signIn('bob@example.com');
    mallory = await t.signIn('mallory@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  const agreement = (id: string, rest = '') => `/api/v1/agreements/${id}${rest}`;
  const tokens = () => ({ 'alice@example.com': alice, 'bob@example.com': bob });

  /** Signs as the initiator, submits, then every other party signs: the record seals. */
  async function signAndSeal(recordId: string, initiator: 'alice@example.com' | 'bob@example.com', others: ('alice@example.com' | 'bob@example.com')[]) {
    const signed = await signWithEmailOtp(t, tokens()[initiator], initiator, recordId);
    expect(signed.status).toBe(200);
    const submitted = await t.request('POST', agreement(recordId, '/submit'), { token: tokens()[initiator] });
    expect(submitted.body.status).toBe('pending_confirmation');
    let last = submitted;
    for (const other of others) last = await signWithEmailOtp(t, tokens()[other], other, recordId);
    expect(last.body.status).toBe('sealed');
    return last.body as RecordBody;
  }

  async function draftByAlice() {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    expect(created.status).toBe(201);
    return created.body as RecordBody;
  }

  async function pendingByAlice() {
    const draft = await draftByAlice();
    await signWithEmailOtp(t, alice, 'alice@example.com', draft.id);
    const submitted = await t.request('POST', agreement(draft.id, '/submit'), { token: alice });
    expect(submitted.body.status).toBe('pending_confirmation');
    return submitted.body as RecordBody;
  }

  async function sealedByAlice() {
    const draft = await draftByAlice();
    return signAndSeal(draft.id, 'alice@example.com', ['bob@example.com']);
  }

  const byRole = (record: RecordBody, role: string) => record.parties.filter((p) => p.role === role);

  it('amends a sealed record into a new draft linked to it', async () => {
    const original = await sealedByAlice();
    const amended = await t.request('POST', agreement(original.id, '/amend'), {
      token: alice,
      body: { body: AMENDED_BODY, amendment_note: 'Watering more often in summer' },
    });
    expect(amended.status).toBe(201);
    expect(amended.body).toMatchObject({
      status: 'draft',
      type: 'agreement',
      title: 'Garden sharing',
      body: AMENDED_BODY,
      current_version: 1,
      supersedes_agr_id: original.id,
      superseded_by_agr_id: null,
      metadata: { kind: 'amendment', amendment_note: 'Watering more often in summer' },
    });
    expect(amended.body.id).not.toBe(original.id);
    expect(amended.body.agr_reference).not.toBe(original.agr_reference);
    expect(byRole(amended.body, 'initiator').map((p) => p.contact_point_value)).toEqual(['alice@example.com']);
    expect(byRole(amended.body, 'party').map((p) => p.contact_point_value)).toEqual(['bob@example.com']);

    const stillSealed = await t.request('GET', agreement(original.id), { token: alice });
    expect(stillSealed.body).toMatchObject({ status: 'sealed', superseded_by_agr_id: null });
  });

  it('creates a mutual cancellation draft for a sealed record', async () => {
    const original = await sealedByAlice();
    const cancellation = await t.request('POST', agreement(original.id, '/cancel'), { token: bob, body: { reason: 'We moved away' } });
    expect(cancellation.status).toBe(201);
    expect(cancellation.body).toMatchObject({
      status: 'draft',
      supersedes_agr_id: original.id,
      metadata: { kind: 'mutual_cancellation' },
    });
    expect(cancellation.body.body).toContain(original.agr_reference);
    expect(cancellation.body.body).toContain('We moved away');
  });

  it('cancels a draft in place instead of creating a cancellation record', async () => {
    const draft = await draftByAlice();
    const cancelled = await t.request('POST', agreement(draft.id, '/cancel'), { token: alice, body: {} });
    expect(cancelled.status).toBe(201);
    expect(cancelled.body).toMatchObject({ id: draft.id, status: 'cancelled_draft', supersedes_agr_id: null });
  });

  it('refuses to amend or cancel a record that is not sealed', async () => {
    const draft = await draftByAlice();
    const amendDraft = await t.request('POST', agreement(draft.id, '/amend'), { token: alice, body: { body: AMENDED_BODY } });
    expect(amendDraft).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });

    const pending = await pendingByAlice();
    const amendPending = await t.request('POST', agreement(pending.id, '/amend'), { token: alice, body: { body: AMENDED_BODY } });
    expect(amendPending).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
    const cancelPending = await t.request('POST', agreement(pending.id, '/cancel'), { token: bob, body: {} });
    expect(cancelPending).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
    const read = await t.request('GET', agreement(pending.id), { token: alice });
    expect(read.body.status).toBe('pending_confirmation');
  });

  it('answers a stranger as if the record did not exist', async () => {
    const original = await sealedByAlice();
    const amend = await t.request('POST', agreement(original.id, '/amend'), { token: mallory, body: { body: AMENDED_BODY } });
    expect(amend).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
    const cancel = await t.request('POST', agreement(original.id, '/cancel'), { token: mallory, body: {} });
    expect(cancel).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
  });

  it('allows one open amendment or cancellation at a time', async () => {
    const original = await sealedByAlice();
    const first = await t.request('POST', agreement(original.id, '/amend'), { token: alice, body: { body: AMENDED_BODY } });
    expect(first.status).toBe(201);
    const second = await t.request('POST', agreement(original.id, '/amend'), {
      token: bob,
      body: { body: 'We agree to share the garden equally and to water it on weekends only.' },
    });
    expect(second.status).toBe(409);
    const cancellation = await t.request('POST', agreement(original.id, '/cancel'), { token: bob, body: {} });
    expect(cancellation.status).toBe(409);

    // Once the open draft is cancelled, a new amendment may start.
    await t.request('POST', agreement(first.body.id, '/cancel'), { token: alice, body: {} });
    const third = await t.request('POST', agreement(original.id, '/amend'), { token: bob, body: { body: AMENDED_BODY } });
    expect(third.status).toBe(201);
  });

  it('lets exactly one of a racing amendment and cancellation through', async () => {
    const original = await sealedByAlice();
    const [amend, cancel] = await Promise.all([
      t.request('POST', agreement(original.id, '/amend'), { token: alice, body: { body: AMENDED_BODY } }),
      t.request('POST', agreement(original.id, '/cancel'), { token: bob, body: {} }),
    ]);
    expect([amend.status, cancel.status].sort()).toEqual([201, 409]);
    const successors = (await t.request('GET', '/api/v1/identity/agreements', { token: alice })).body.agreements.filter(
      (r: RecordBody) => r.supersedes_agr_id === original.id,
    );
    expect(successors).toHaveLength(1);
  });

  it('supersedes the original when its amendment is signed by everyone', async () => {
    const original = await sealedByAlice();
    const amended = await t.request('POST', agreement(original.id, '/amend'), { token: alice, body: { body: AMENDED_BODY } });
    const sealedAmendment = await signAndSeal(amended.body.id, 'alice@example.com', ['bob@example.com']);
    expect(sealedAmendment).toMatchObject({ body: AMENDED_BODY, supersedes_agr_id: original.id });

    const superseded = await t.request('GET', agreement(original.id), { token: bob });
    expect(superseded.body).toMatchObject({ status: 'superseded', superseded_by_agr_id: amended.body.id });

    const amendAgain = await t.request('POST', agreement(original.id, '/amend'), { token: alice, body: { body: AMENDED_BODY } });
    expect(amendAgain).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });
  });

  it('supersedes the original when a mutual cancellation is signed by everyone', async () => {
    const original = await sealedByAlice();
    const cancellation = await t.request('POST', agreement(original.id, '/cancel'), { token: alice, body: { reason: 'Garden sold' } });
    await signAndSeal(cancellation.body.id, 'alice@example.com', ['bob@example.com']);

    const superseded = await t.request('GET', agreement(original.id), { token: alice });
    expect(superseded.body).toMatchObject({ status: 'superseded', superseded_by_agr_id: cancellation.body.id });
  });

  it("makes the amending party the initiator of the amendment, and the original initiator a party", async () => {
    const original = await sealedByAlice();
    const amended = await t.request('POST', agreement(original.id, '/amend'), { token: bob, body: { body: AMENDED_BODY } });
    expect(amended.status).toBe(201);
    expect(byRole(amended.body, 'initiator').map((p) => p.contact_point_value)).toEqual(['bob@example.com']);
    expect(byRole(amended.body, 'party').map((p) => p.contact_point_value)).toEqual(['alice@example.com']);

    const aliceSubmits = await t.request('POST', agreement(amended.body.id, '/submit'), { token: alice });
    expect(aliceSubmits.status).toBe(403);
    const aliceSignsDraft = await t.request('POST', agreement(amended.body.id, '/signature-execution'), { token: alice });
    expect(aliceSignsDraft).toMatchObject({ status: 409, body: { error_code: 'invalid_transition' } });

    await signAndSeal(amended.body.id, 'bob@example.com', ['alice@example.com']);
    const superseded = await t.request('GET', agreement(original.id), { token: alice });
    expect(superseded.body).toMatchObject({ status: 'superseded', superseded_by_agr_id: amended.body.id });
  });

  it('checks the amendment body and note against the limits', async () => {
    const original = await sealedByAlice();
    const amend = (body: Record<string, unknown>) => t.request('POST', agreement(original.id, '/amend'), { token: alice, body });
    const locs = (response: { body: { detail: { loc: (string | number)[] }[] } }) => response.body.detail.map((issue) => issue.loc.join('.'));

    const tooShort = await amend({ body: 'Too short' });
    expect(tooShort.status).toBe(422);
    expect(locs(tooShort)).toContain('body.body');

    const tooLong = await amend({ body: 'word '.repeat(1401) + 'end' });
    expect(tooLong.status).toBe(422);
    expect(locs(tooLong)).toContain('body.body');

    const tooManyWords = await amend({ body: Array.from({ length: 351 }, (_, i) => `w${i}`).join(' ') });
    expect(tooManyWords.status).toBe(422);
    expect(locs(tooManyWords)).toContain('body.body');

    const longNote = await amend({ body: AMENDED_BODY, amendment_note: 'n'.repeat(501) });
    expect(longNote.status).toBe(422);
    expect(locs(longNote)).toContain('body.amendment_note');

    const missing = await amend({ amendment_note: 'No body' });
    expect(missing.status).toBe(422);
    expect(locs(missing)).toContain('body.body');

    const unchanged = await amend({ body: original.body });
    expect(unchanged.status).toBe(422);

    const longReason = await t.request('POST', agreement(original.id, '/cancel'), { token: alice, body: { reason: 'r'.repeat(501) } });
    expect(longReason.status).toBe(422);

    const read = await t.request('GET', agreement(original.id), { token: alice });
    expect(read.body).toMatchObject({ status: 'sealed', superseded_by_agr_id: null });
  });

  it('needs the amend scope to amend and the cancel scope to cancel', async () => {
    const original = await sealedByAlice();
    const cancelOnly = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['retrieve', 'cancel'] } });
    const amend = await t.request('POST', agreement(original.id, '/amend'), { apiKey: cancelOnly.body.key, body: { body: AMENDED_BODY } });
    expect(amend).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['amend'] } });

    const amendOnly = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['retrieve', 'amend'] } });
    const cancel = await t.request('POST', agreement(original.id, '/cancel'), { apiKey: amendOnly.body.key, body: {} });
    expect(cancel).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['cancel'] } });
  });

  // Scopes are exact: answering with the changed record must not need `retrieve` as well.
  it('lets an API key with only the amend scope amend a sealed record', async () => {
    const original = await sealedByAlice();
    const amendOnly = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['amend'] } });
    const amend = await t.request('POST', agreement(original.id, '/amend'), { apiKey: amendOnly.body.key, body: { body: AMENDED_BODY } });
    expect(amend.status).toBe(201);
    expect(amend.body.supersedes_agr_id).toBe(original.id);
  });

  it('lets an API key with only the cancel scope start a mutual cancellation', async () => {
    const original = await sealedByAlice();
    const cancelOnly = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['cancel'] } });
    const cancel = await t.request('POST', agreement(original.id, '/cancel'), { apiKey: cancelOnly.body.key, body: {} });
    expect(cancel.status).toBe(201);
    expect(cancel.body.metadata).toMatchObject({ kind: 'mutual_cancellation' });
  });
});
