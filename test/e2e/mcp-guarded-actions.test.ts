import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { ManualClock } from '../support/clock.js';
import { connectMcp, type McpClient } from '../support/mcp.js';

type Party = { id: string; role: string; contact_point_value: string | null };
type Pending = { id: string; agr_reference: string; parties: Party[] };

const PROPOSED_BODY = 'We agree to share the garden equally and to take turns watering it every second day.';

describe('MCP guarded actions: previews, confirmation tokens and their misuse', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let aliceToken: string;
  let keyA: McpClient;
  let keyB: McpClient;

  beforeAll(async () => {
    t = await startTestApp({ INVITATION_RESENDS_PER_HOUR: '2', METHOD_STARTS_PER_WINDOW: '200', OTP_REQUESTS_PER_WINDOW: '200' }, { clock });
    aliceToken = await t.signIn('alice@example.com');
    const scopes = ['create', 'retrieve', 'verify', 'amend', 'cancel'];
    const first = await t.request('POST', '/api/v1/api-keys', { token: aliceToken, body: { scopes, name: 'A' } });
    const second = await t.request('POST', '/api/v1/api-keys', { token: aliceToken, body: { scopes, name: 'B' } });
    keyA = await connectMcp(t.url, { bearer: first.body.key });
    keyB = await connectMcp(t.url, { bearer: second.body.key });
  });
  afterAll(async () => {
    await keyA?.close();
    await keyB?.close();
    await t?.stop();
  });

  /** Alice's agreement with Bob and Carol, signed and submitted over REST. */
  async function pending(): Promise<Pending> {
    const created = await t.request('POST', '/api/v1/agreements', {
      token: aliceToken,
      body: agreementBody({ parties: [{ display_name: 'Bob', contact_point_value: 'bob@example.com' }, { display_name: 'Carol', contact_point_value: 'carol@example.com' }] }),
    });
    await signWithEmailOtp(t, aliceToken, 'alice@example.com', created.body.id);
    const submitted = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: aliceToken });
    expect(submitted.body.status).toBe('pending_confirmation');
    return submitted.body as Pending;
  }
  const party = (record: Pending, email: string) => record.parties.find((p) => p.contact_point_value === email)!;
  const invitations = (record: Pending) => t.smtp.messages.filter((m) => m.to.includes('bob@example.com') && m.text.includes(record.agr_reference)).length;
  const status = async (record: Pending) => (await t.request('GET', `/api/v1/agreements/${record.id}`, { token: aliceToken })).body.status as string;

  async function previewResend(client: McpClient, record: Pending, email = 'bob@example.com') {
    const preview = await client.call('preview_invitation_resend', { agr_reference: record.agr_reference, party_id: party(record, email).id });
    expect(preview.isError).toBe(false);
    return preview.structured as { confirmation_token: string; agreement_version: number; next_action: { tool: string; arguments: Record<string, unknown> } };
  }

  it('answers confirmation_required naming the preview tool when no token is given', async () => {
    const record = await pending();
    const args = { agr_reference: record.agr_reference, party_id: party(record, 'bob@example.com').id };
    const refused = await keyA.call('resend_invitation', args);
    expect(refused).toMatchObject({ isError: true, structured: { error_code: 'confirmation_required', retry_action: { tool: 'preview_invitation_resend', arguments: args } } });
  });

  it('executes exactly what was previewed once, and refuses a replay (stale_confirmation_token)', async () => {
    const record = await pending();
    await t.smtp.waitFor('bob@example.com', (m) => m.text.includes(record.agr_reference));
    const preview = await previewResend(keyA, record);
    expect(preview.next_action.tool).toBe('resend_invitation');
    const done = await keyA.call('resend_invitation', preview.next_action.arguments);
    expect(done.isError).toBe(false);
    await t.smtp.waitFor('bob@example.com', () => invitations(record) === 2);
    const replay = await keyA.call('resend_invitation', preview.next_action.arguments);
    expect(replay.structured).toMatchObject({ error_code: 'stale_confirmation_token', retry_action: { tool: 'preview_invitation_resend' } });
    expect(invitations(record)).toBe(2);
  });

  it('binds the token to the principal, the record, the target and the arguments: any mismatch changes nothing', async () => {
    const record = await pending();
    const other = await pending();
    await t.smtp.waitFor('bob@example.com', (m) => m.text.includes(record.agr_reference));
    const preview = await previewResend(keyA, record);
    const { confirmation_token, agreement_version } = preview;
    const bob = party(record, 'bob@example.com').id;

    const rows: [string, McpClient, Record<string, unknown>][] = [
      ['other principal', keyB, preview.next_action.arguments],
      ['other record', keyA, { agr_reference: other.agr_reference, party_id: party(other, 'bob@example.com').id, confirmation_token, agreement_version }],
      ['other target', keyA, { agr_reference: record.agr_reference, party_id: party(record, 'carol@example.com').id, confirmation_token, agreement_version }],
    ];
    for (const [, client, args] of rows) {
      const refused = await client.call('resend_invitation', args);
      expect(refused.structured.error_code).toBe('stale_confirmation_token');
    }
    expect(invitations(record)).toBe(1);

    // Changed arguments of a destructive action: nothing is rescinded.
    const rescind = await keyA.call('preview_cancellation', { agr_reference: record.agr_reference, action: 'rescind', reason: 'We changed our plans.' });
    expect(rescind.structured.what_changes.join(' ')).toContain('rescinded');
    const changed = await keyA.call('cancel_agreement', { ...rescind.structured.next_action.arguments, reason: 'Something else entirely.' });
    expect(changed.structured.error_code).toBe('stale_confirmation_token');
    expect(await status(record)).toBe('pending_confirmation');

    // The mismatches spent nothing: the right caller with the right arguments still succeeds, once.
    const done = await keyA.call('resend_invitation', { agr_reference: record.agr_reference, party_id: bob, confirmation_token, agreement_version });
    expect(done.isError).toBe(false);
    const rescinded = await keyA.call('cancel_agreement', rescind.structured.next_action.arguments);
    expect(rescinded.structured).toMatchObject({ status: 'rescinded' });
  });

  it('answers conflict when the record changed version since the preview (a counter-proposal was accepted)', async () => {
    const record = await pending();
    const stale = await previewResend(keyA, record);

    const bob = await t.signIn('bob@example.com');
    const counter = await t.request('POST', `/api/v1/agreements/${record.id}/counter`, { token: bob, body: { proposed_body: PROPOSED_BODY } });
    expect(counter.status).toBe(201);
    const read = await keyA.call('get_agreement', { agr_reference: record.agr_reference });
    expect(read.structured.next_action).toMatchObject({ tool: 'preview_counter_resolution', arguments: { counter_id: counter.body.id } });
    const resolution = await keyA.call('preview_counter_resolution', { agr_reference: record.agr_reference, counter_id: counter.body.id, decision: 'accept' });
    expect(resolution.structured.what_changes.join(' ')).toContain('version 1 becomes 2');
    const accepted = await keyA.call('resolve_counter', resolution.structured.next_action.arguments);
    expect(accepted.structured).toMatchObject({ agreement_version: 2 });

    const conflict = await keyA.call('resend_invitation', stale.next_action.arguments);
    expect(conflict.structured).toMatchObject({ error_code: 'conflict', retry_action: { tool: 'preview_invitation_resend' } });
    const claimed = await keyA.call('resend_invitation', { ...stale.next_action.arguments, agreement_version: 2 });
    expect(claimed.structured.error_code).toBe('conflict');
  });

  it('answers expired for a token past its lifetime', async () => {
    const record = await pending();
    const preview = await previewResend(keyA, record);
    clock.advance(301_000);
    const late = await keyA.call('resend_invitation', preview.next_action.arguments);
    expect(late.structured).toMatchObject({ error_code: 'expired', retry_action: { tool: 'preview_invitation_resend' } });
  });

  it('answers rate_limited with an honest retry_after_seconds past the resend limit', async () => {
    const record = await pending();
    let limited: any = null;
    for (let attempt = 0; attempt < 4 && !limited; attempt += 1) {
      const preview = await previewResend(keyA, record);
      const result = await keyA.call('resend_invitation', preview.next_action.arguments);
      if (result.isError) limited = result.structured;
    }
    expect(limited).toMatchObject({ error_code: 'rate_limited', retry_after_seconds: expect.any(Number) });
    expect(limited.retry_after_seconds).toBeGreaterThan(0);
    // A sliding window of an hour: the wait until the next resend really passes is at most two windows.
    expect(limited.retry_after_seconds).toBeLessThanOrEqual(7200);
  });

  it('answers not_found, validation_error and conflict from real situations', async () => {
    expect((await keyA.call('get_agreement', { agr_reference: 'AGR-0000-0000' })).structured.error_code).toBe('not_found');
    const short = await keyA.call('create_agreement', { body: 'Too short', on_chain_full_text: false, on_chain_include_verified_parties: false });
    expect(short.structured).toMatchObject({ error_code: 'validation_error', issues: [expect.objectContaining({ path: ['body'] })] });
    const record = await pending();
    const notDraft = await keyA.call('preview_draft_change', { agr_reference: record.agr_reference, action: 'submit' });
    expect(notDraft.structured).toMatchObject({ error_code: 'conflict', retry_action: { tool: 'get_agreement' } });
    // A domain conflict: finalizing again after the initiator already finalized.
    const again = await keyA.call('finalize_signature_execution', { agr_reference: record.agr_reference });
    expect(again.isError).toBe(true);
    expect(['conflict', 'signature_incomplete']).toContain(again.structured.error_code);
  });

  it('refuses a preview of a move the record does not offer (decline on a sealed record): no token, and no way back to the same preview', async () => {
    const record = await pending();
    // The initiator cannot decline a pending record: the preview says so at once.
    const initiatorDecline = await keyA.call('preview_decline', { agr_reference: record.agr_reference });
    expect(initiatorDecline).toMatchObject({ isError: true, structured: { error_code: 'conflict', retry_action: { tool: 'get_agreement' } } });
    expect(initiatorDecline.structured.confirmation_token).toBeUndefined();
    // A participant move the record does not offer on that participant (Bob has not declined): refused too.
    const completeWithout = await keyA.call('preview_participant_change', { agr_reference: record.agr_reference, party_id: party(record, 'bob@example.com').id, action: 'complete_without' });
    expect(completeWithout).toMatchObject({ isError: true, structured: { error_code: 'conflict', retry_action: { tool: 'get_agreement' } } });
    expect(completeWithout.structured.confirmation_token).toBeUndefined();

    const bobToken = await t.signIn('bob@example.com');
    await signWithEmailOtp(t, bobToken, 'bob@example.com', record.id);
    const sealed = await signWithEmailOtp(t, await t.signIn('carol@example.com'), 'carol@example.com', record.id);
    expect(sealed.body.status).toBe('sealed');
    const bobKey = await t.request('POST', '/api/v1/api-keys', { token: bobToken, body: { scopes: ['retrieve', 'cancel', 'amend'] } });
    const bob = await connectMcp(t.url, { bearer: bobKey.body.key });
    try {
      const preview = await bob.call('preview_decline', { agr_reference: record.agr_reference });
      expect(preview).toMatchObject({ isError: true, structured: { error_code: 'conflict', retry_action: { tool: 'get_agreement', arguments: { agr_reference: record.agr_reference } } } });
      expect(preview.structured.confirmation_token).toBeUndefined();
      expect(preview.structured.message).toMatch(/sealed; you may now: amend, cancel/);
      // The retry action reads the record, which offers what Bob may do: declining is not among it.
      const read = await bob.call(preview.structured.retry_action.tool, preview.structured.retry_action.arguments);
      expect(read.structured.available_actions).toEqual(['amend', 'cancel']);
      // A move it does offer previews as usual.
      const amend = await bob.call('preview_amendment', { agr_reference: record.agr_reference, body: PROPOSED_BODY });
      expect(amend.isError).toBe(false);
      expect(amend.structured.confirmation_token).toEqual(expect.any(String));
    } finally {
      await bob.close();
    }
  });

  it('previews a decline as what it will do: the initiator may go on without a party, the last party ends the record, a witness may be waived or replaced', async () => {
    const record = await pending();
    const connect = async (email: string) => {
      const key = await t.request('POST', '/api/v1/api-keys', { token: await t.signIn(email), body: { scopes: ['retrieve', 'cancel'] } });
      return connectMcp(t.url, { bearer: key.body.key });
    };
    const decline = async (client: McpClient) => {
      const preview = await client.call('preview_decline', { agr_reference: record.agr_reference });
      expect(preview.isError).toBe(false);
      const done = await client.call(preview.structured.next_action.tool, preview.structured.next_action.arguments);
      expect(done.isError).toBe(false);
      return preview.structured.what_changes as string[];
    };
    const bob = await connect('bob@example.com');
    const carol = await connect('carol@example.com');
    try {
      // Carol can still sign: Bob's decline leaves the record pending.
      expect(await decline(bob)).toEqual([
        `You decline ${record.agr_reference}; the record stays pending and cannot seal while it waits for you. The initiator is told and may complete the record without you or rescind the record.`,
      ]);
      expect(await status(record)).toBe('pending_confirmation');
      // Carol is the last party able to sign: her decline ends the record, and the preview says so.
      const [last] = await decline(carol);
      expect(last).toContain('You are the last party still able to sign, so the record ends as declined');
      expect(last).not.toContain('complete the record without you');
      expect(await status(record)).toBe('declined');
    } finally {
      await bob.close();
      await carol.close();
    }

    // A witness steps out without ending anything: the initiator may waive or replace them.
    const created = await t.request('POST', '/api/v1/agreements', {
      token: aliceToken,
      body: agreementBody({ type: 'witnessed_agreement', witnesses: [{ display_name: 'Dana', contact_point_value: 'dana@example.com' }] }),
    });
    await signWithEmailOtp(t, aliceToken, 'alice@example.com', created.body.id);
    expect((await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: aliceToken })).body.status).toBe('pending_confirmation');
    const dana = await connect('dana@example.com');
    try {
      const preview = await dana.call('preview_decline', { agr_reference: created.body.agr_reference });
      expect(preview.structured.what_changes).toEqual([
        `You decline ${created.body.agr_reference}; the record stays pending and cannot seal while it waits for you. The initiator is told and may waive your signature as witness, invite another witness in your place or rescind the record.`,
      ]);
    } finally {
      await dana.close();
    }
  });

  it('housekeeping deletes spent and expired confirmation tokens, and a swept token is stale', async () => {
    const record = await pending();
    const live = await previewResend(keyA, record);
    const swept = await t.app.services.housekeeping.sweep();
    expect(swept.mcpConfirmations).toBeGreaterThan(0);
    // The live token survived the sweep and still works.
    expect((await keyA.call('resend_invitation', live.next_action.arguments)).isError).toBe(false);
    await t.app.services.housekeeping.sweep();
    expect((await keyA.call('resend_invitation', live.next_action.arguments)).structured.error_code).toBe('stale_confirmation_token');
  });

  it('never logs confirmation tokens', () => {
    expect(t.logs()).not.toMatch(/rss_cfm_[A-Za-z0-9_-]{20}/);
  });

  it("names a refused argument by the tool's own name (method_type), not the domain's", async () => {
    const created = await t.request('POST', '/api/v1/agreements', { token: aliceToken, body: agreementBody() });
    await keyA.call('start_or_resume_signature_execution', { agr_reference: created.body.agr_reference });
    // Alice has no messenger contact point: that method cannot serve her.
    const refused = await keyA.call('start_signature_method', { agr_reference: created.body.agr_reference, method_type: 'messenger' });
    expect(refused.isError).toBe(true);
    expect(refused.structured).toMatchObject({ error_code: 'validation_error', issues: [expect.objectContaining({ path: ['method_type'] })] });
  });
});
