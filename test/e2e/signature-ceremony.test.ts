import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';

describe('Signature ceremony (REST)', () => {
  let t: TestApp;
  let alice: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '50', METHOD_STARTS_PER_WINDOW: '3' });
    alice = await t.signIn('alice@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  async function draft(overrides: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    return created.body as { id: string; agr_reference: string };
  }

  const path = (id: string, rest = '') => `/api/v1/agreements/${id}/signature-execution${rest}`;

  async function signatureCode(record: string): Promise<string> {
    const before = t.smtp.messages.length;
    const started = await t.request('POST', path(record, '/methods/email_otp/start'), { token: alice, body: {} });
    expect(started.status).toBe(200);
    const mail = await t.smtp.waitFor('alice@example.com', (m) => t.smtp.messages.indexOf(m) >= before);
    expect(mail.subject).toBe('Your signature code');
    return /code is (\d{6})/.exec(mail.text)![1]!;
  }

  it('starts an execution bound to the current version, listing the methods', async () => {
    const record = await draft();
    const started = await t.request('POST', path(record.id), { token: alice });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      id: expect.any(String),
      record_id: record.id,
      party_id: expect.any(String),
      record_version: 1,
      status: 'in_progress',
      required_signature_method_count: 1,
      satisfied_method_count: 0,
      can_finalize: false,
      // Only the methods that can serve this signer: no messenger contact point, not an API-key caller.
      methods: ['email_otp', 'codehost_gist', 'microblog_post', 'forum_post', 'webauthn_passkey'].map((type) => ({
        method_type: type,
        status: 'available',
        step: null,
        satisfied_at: null,
      })),
      finalized_at: null,
      signature_identicon: null,
    });
    const resumed = await t.request('POST', path(record.agr_reference), { token: alice });
    expect(resumed.body.id).toBe(started.body.id);
    const read = await t.request('GET', path(record.id), { token: alice });
    expect(read.body.id).toBe(started.body.id);
  });

  it('satisfies email_otp with the signature code only, then finalizes with evidence and an identicon', async () => {
    const record = await draft();
    await t.request('POST', path(record.id), { token: alice });
    const code = await signatureCode(record.id);
    const inProgress = await t.request('GET', `/api/v1/agreements/${record.id}`, { token: alice });
    expect(inProgress.body.initiator_signature).toMatchObject({ status: 'in_progress', satisfied_method_count: 0, can_finalize: false });
    const pending = await t.request('GET', path(record.id), { token: alice });
    expect(pending.body.methods[0]).toMatchObject({ status: 'pending', step: { prompt: expect.stringContaining('a****@example.com') } });

    // An authentication code for the same address is a different input and never signs.
    const before = t.smtp.messages.length;
    await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'alice@example.com', purpose: 'authenticate' } });
    const authCode = await t.smtp.codeFor('alice@example.com', before);
    if (authCode !== code) {
      const refused = await t.request('POST', path(record.id, '/methods/email_otp/submit'), { token: alice, body: { code: authCode } });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'code'], type: 'otp_invalid' });
    }
    const early = await t.request('POST', path(record.id, '/finalize'), { token: alice, body: {} });
    expect(early).toMatchObject({ status: 409, body: { error_code: 'signature_incomplete' } });

    const satisfied = await t.request('POST', path(record.id, '/methods/email_otp/submit'), { token: alice, body: { code } });
    expect(satisfied.status).toBe(200);
    expect(satisfied.body).toMatchObject({ satisfied_method_count: 1, can_finalize: true });
    expect(satisfied.body.methods[0]).toMatchObject({ status: 'satisfied', step: null, satisfied_at: expect.any(String) });
    const ready = await t.request('GET', `/api/v1/agreements/${record.id}`, { token: alice });
    expect(ready.body.initiator_signature).toMatchObject({ status: 'in_progress', satisfied_method_count: 1, can_finalize: true });

    const finalized = await t.request('POST', path(record.id, '/finalize'), { token: alice });
    expect(finalized.status).toBe(200);
    expect(finalized.body.initiator_signature).toMatchObject({ status: 'finalized', confirmed_version: 1 });
    expect(finalized.body.ready_for_submission).toBe(true);
    const initiator = finalized.body.parties.find((p: { role: string }) => p.role === 'initiator');
    expect(initiator).toMatchObject({ confirmed_version: 1, confirmed_at: expect.any(String) });

    const execution = await t.request('GET', path(record.id), { token: alice });
    expect(execution.body).toMatchObject({ status: 'finalized', can_finalize: false, finalized_at: expect.any(String) });
    expect(execution.body.signature_identicon).toEqual({
      kind: 'signature',
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      short_hash: expect.stringMatching(/^[0-9a-f]{8}$/),
      width: 160,
      height: 160,
      alt_text: expect.stringContaining(record.agr_reference),
      available: true,
    });
    const compat = await t.request('GET', `${path(record.id)}?image_representation=compatibility_data_uri`, { token: alice });
    expect(compat.body.signature_identicon.svg_data_uri).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(compat.body.signature_identicon.digest).toBe(execution.body.signature_identicon.digest);
    const again = await t.request('POST', path(record.id, '/finalize'), { token: alice });
    expect(again.status).toBe(409);

    // The record shows the same identicon on the initiator's row; image bytes only on request.
    const read = await t.request('GET', `/api/v1/agreements/${record.id}`, { token: alice });
    const row = read.body.parties.find((p: { role: string }) => p.role === 'initiator');
    expect(row.signature_identicon).toEqual(execution.body.signature_identicon);
    expect(JSON.stringify(read.body)).not.toContain('svg_data_uri');
    const readCompat = await t.request('GET', `/api/v1/agreements/${record.id}?image_representation=compatibility_data_uri`, { token: alice });
    expect(readCompat.body.parties[0].signature_identicon.svg_data_uri).toBe(compat.body.signature_identicon.svg_data_uri);
  });

  it('requires the explicit acknowledgement for records that publish verified parties', async () => {
    const record = await draft({ on_chain_include_verified_parties: true });
    await t.request('POST', path(record.id), { token: alice });
    const code = await signatureCode(record.id);
    await t.request('POST', path(record.id, '/methods/email_otp/submit'), { token: alice, body: { code } });
    const refused = await t.request('POST', path(record.id, '/finalize'), { token: alice, body: {} });
    expect(refused).toMatchObject({ status: 409, body: { error_code: 'acknowledgement_required' } });
    const ok = await t.request('POST', path(record.id, '/finalize'), { token: alice, body: { acknowledge_public_verified_parties: true } });
    expect(ok.status).toBe(200);
  });

  it('needs the verify scope, and names the path parameter of an unknown or unavailable method', async () => {
    const record = await draft();
    const keys = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['retrieve', 'create'] } });
    const noVerify = await t.request('POST', path(record.id), { apiKey: keys.body.key });
    expect(noVerify).toMatchObject({ status: 403, body: { error_code: 'missing_scope', required_scopes: ['verify'] } });

    const unknown = await t.request('POST', path(record.id, '/methods/carrier_pigeon/start'), { token: alice, body: {} });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc[0]).toBe('path');
    const later = await t.request('POST', path(record.id, '/methods/api_key/start'), { token: alice, body: {} });
    expect(later.status).toBe(422);
    expect(later.body.detail[0]).toMatchObject({ loc: ['path', 'method_type'], type: 'method_not_applicable' });
  });

  it('answers whose turn it is in sequential order: signing_order, current_signer_ids, and the refusal naming them', async () => {
    const [bob, carol] = [await t.signIn('bob@example.com'), await t.signIn('carol@example.com')];
    const parties = [
      { display_name: 'Bob', contact_point_value: 'bob@example.com' },
      { display_name: 'Carol', contact_point_value: 'carol@example.com' },
    ];
    const record = await draft({ parties, signing_order: 'sequential' });
    expect(record).toMatchObject({ signing_order: 'sequential', current_signer_ids: [] });
    expect((await signWithEmailOtp(t, alice, 'alice@example.com', record.id)).status).toBe(200);
    const submitted = await t.request('POST', `/api/v1/agreements/${record.id}/submit`, { token: alice });
    const byName = (name: string) => (submitted.body.parties as { id: string; display_name: string; available_actions: string[] }[]).find((p) => p.display_name === name)!;
    expect(submitted.body.current_signer_ids).toEqual([byName('Bob').id]);
    expect([byName('Bob').available_actions, byName('Carol').available_actions]).toEqual([['resend_invitation'], []]);
    expect((await t.request('GET', `/api/v1/agreements/${record.id}`, { token: carol })).body.available_actions).toEqual(['decline', 'propose_counter']);
    const early = await t.request('POST', path(record.id), { token: carol });
    expect(early).toMatchObject({ status: 409, body: { error_code: 'invalid_transition', detail: expect.stringContaining("waiting for Bob's signature") } });
    expect((await t.request('GET', `/api/v1/agreements/${record.id}`, { token: bob })).body.available_actions).toContain('sign');
  });

  it('cancels a pending method', async () => {
    const record = await draft();
    await t.request('POST', path(record.id), { token: alice });
    await signatureCode(record.id);
    const cancelled = await t.request('POST', path(record.id, '/methods/email_otp/cancel'), { token: alice });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.methods[0]).toMatchObject({ status: 'cancelled', step: null });
    const refresh = await t.request('POST', path(record.id, '/methods/email_otp/refresh'), { token: alice });
    expect(refresh.body.methods[0].status).toBe('cancelled');
  });

  it('rate-limits method starts with 429 and Retry-After', async () => {
    const record = await draft();
    await t.request('POST', path(record.id), { token: alice });
    for (let i = 0; i < 3; i += 1) {
      expect((await t.request('POST', path(record.id, '/methods/email_otp/start'), { token: alice, body: {} })).status).toBe(200);
    }
    const limited = await t.request('POST', path(record.id, '/methods/email_otp/start'), { token: alice, body: {} });
    expect(limited).toMatchObject({ status: 429, body: { error_code: 'rate_limited', retry_after_seconds: expect.any(Number) } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('never writes a signature code to the log', async () => {
    const record = await draft();
    await t.request('POST', path(record.id), { token: alice });
    const code = await signatureCode(record.id);
    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await t.request('POST', path(record.id, '/methods/email_otp/submit'), { token: alice, body: { code: wrong } });
    expect(JSON.stringify(refused.body)).not.toContain(wrong);
    await t.request('POST', path(record.id, '/methods/email_otp/submit'), { token: alice, body: { code } });
    expect(t.logs()).toContain('request completed');
    expect(t.logs()).not.toContain(code);
    expect(t.logs()).not.toContain(alice);
  });
});
