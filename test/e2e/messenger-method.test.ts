import { ManualClock } from '../support/clock.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

const SECRET = 'whsec_messenger_0123456789abcdef';
const CHALLENGE = /^SIGN-[0-9A-HJKMNP-TV-Z]{8}$/;

type Sender = { id: number; username?: string };
const alice: Sender = { id: 42, username: 'Alice_T' };

describe('Messenger signature method (REST + inbound webhook)', () => {
  let t: TestApp;
  let token: string;
  const clock = new ManualClock();
  let nextUpdateId = 900_000;

  beforeAll(async () => {
    t = await startTestApp({ MESSENGER_WEBHOOK_SECRET: SECRET, OTP_REQUESTS_PER_WINDOW: '50' }, { clock });
    token = await t.signIn('alice@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  const path = (id: string, rest = '') => `/api/v1/agreements/${id}/signature-execution${rest}`;

  /**
   * A draft whose initiator signs through the messenger. Participants with a messenger contact
   * point sign after submission (invitations arrive with the lifecycle work), so the setup moves the
   * initiator's own contact point to a messenger handle directly in the database.
   */
  async function messengerDraft(contactPointValue = 'alice_t', overrides: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    const record = created.body as { id: string; agr_reference: string };
    await t.app.orm.em
      .fork()
      .execute(`update participants set contact_point_type = 'messenger', contact_point_value = ? where record_id = ? and role = 'initiator'`, [
        contactPointValue,
        record.id,
      ]);
    expect((await t.request('POST', path(record.id), { token })).status).toBe(200);
    return record;
  }

  async function startMessenger(recordId: string): Promise<{ challenge: string; url: string; prompt: string }> {
    const started = await t.request('POST', path(recordId, '/methods/messenger/start'), { token, body: {} });
    expect(started.status).toBe(200);
    return messengerOf(started.body).step;
  }

  type MethodEntry = { method_type: string; status: string; step: any; satisfied_at: string | null };
  const messengerOf = (execution: { methods: MethodEntry[] }) => execution.methods.find((m) => m.method_type === 'messenger')!;

  async function messengerStatus(recordId: string) {
    const execution = await t.request('GET', path(recordId), { token });
    return { execution: execution.body, method: messengerOf(execution.body) };
  }

  function update(text: string, from: Sender = alice, updateId = nextUpdateId++) {
    return {
      update_id: updateId,
      message: {
        message_id: updateId,
        from: { ...from, is_bot: false, first_name: 'Alice' },
        chat: { id: from.id, type: 'private' },
        date: Math.floor(clock.now().getTime() / 1000),
        text,
      },
    };
  }

  function deliver(body: unknown, options: { secret?: string | null; via?: 'query' | 'header' } = {}) {
    const secret = options.secret === undefined ? SECRET : options.secret;
    const via = options.via ?? 'query';
    const query = secret !== null && via === 'query' ? `?secret=${encodeURIComponent(secret)}` : '';
    const headers: Record<string, string> = secret !== null && via === 'header' ? { 'X-Telegram-Bot-Api-Secret-Token': secret } : {};
    return t.request('POST', `/api/v1/inbound/messenger${query}`, { body, headers });
  }

  it('refuses to start for a participant without a messenger contact point', async () => {
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() });
    await t.request('POST', path(created.body.id), { token });
    const refused = await t.request('POST', path(created.body.id, '/methods/messenger/start'), { token, body: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['path', 'method_type'], type: 'method_not_applicable' });
  });

  it('completes when the participant sends the challenge (secret in the query), then allows finalizing', async () => {
    const record = await messengerDraft();
    const step = await startMessenger(record.id);
    expect(step.challenge).toMatch(CHALLENGE);
    expect(step.url).toBe(`https://t.me/record_signing_bot?start=${step.challenge}`);
    expect(step.prompt).toContain('@record_signing_bot');
    expect(step.prompt).toContain(step.challenge);
    const pending = await messengerStatus(record.id);
    expect(pending.method).toMatchObject({ status: 'pending', step: { challenge: step.challenge, proof_text: null }, satisfied_at: null });
    const refreshed = await t.request('POST', path(record.id, '/methods/messenger/refresh'), { token });
    expect(messengerOf(refreshed.body).status).toBe('pending');

    // What the deep link makes the platform send: "/start <challenge>".
    const received = await deliver(update(`/start ${step.challenge}`));
    expect(received).toMatchObject({ status: 200, body: { ok: true } });

    const { execution, method } = await messengerStatus(record.id);
    expect(method).toMatchObject({ status: 'satisfied', step: null, satisfied_at: expect.any(String) });
    expect(execution).toMatchObject({ satisfied_method_count: 1, can_finalize: true });
    const again = await t.request('POST', path(record.id, '/methods/messenger/refresh'), { token });
    expect(messengerOf(again.body).status).toBe('satisfied');
    const finalized = await t.request('POST', path(record.id, '/finalize'), { token, body: {} });
    expect(finalized.status).toBe(200);
    expect(finalized.body.initiator_signature).toMatchObject({ status: 'finalized' });
  });

  it('accepts the secret in the secret-token header and a sender matched by numeric user id', async () => {
    const record = await messengerDraft('4242');
    const step = await startMessenger(record.id);
    // Typed by hand, in lower case, without a username: the numeric id identifies the sender.
    const received = await deliver(update(`here it is: ${step.challenge.toLowerCase()}`, { id: 4242 }), { via: 'header' });
    expect(received).toMatchObject({ status: 200, body: { ok: true } });
    expect((await messengerStatus(record.id)).method.status).toBe('satisfied');
  });

  it('processes an update id once: a redelivery is acknowledged and has no effect', async () => {
    const first = await messengerDraft();
    const firstStep = await startMessenger(first.id);
    const original = update(`/start ${firstStep.challenge}`);
    expect((await deliver(original)).status).toBe(200);
    const satisfiedAt = (await messengerStatus(first.id)).method.satisfied_at;
    expect(satisfiedAt).toEqual(expect.any(String));

    // The same update id again, now carrying another pending challenge: acknowledged, never processed.
    const second = await messengerDraft();
    const secondStep = await startMessenger(second.id);
    const duplicate = update(`/start ${secondStep.challenge}`, alice, original.update_id);
    expect(await deliver(duplicate)).toMatchObject({ status: 200, body: { ok: true } });
    expect(await deliver(original)).toMatchObject({ status: 200, body: { ok: true } });
    expect((await messengerStatus(second.id)).method.status).toBe('pending');
    expect((await messengerStatus(first.id)).method.satisfied_at).toBe(satisfiedAt);
    const rows = await t.app.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from messenger_updates where update_id = ?', [String(original.update_id)]);
    expect(rows[0]!.n).toBe(1);
  });

  it('answers 403 to a wrong or missing secret and changes nothing', async () => {
    const record = await messengerDraft();
    const step = await startMessenger(record.id);
    const body = update(`/start ${step.challenge}`);
    for (const attempt of [
      deliver(body, { secret: 'not-the-secret-at-all' }),
      deliver(body, { secret: `${SECRET}x`, via: 'header' }),
      deliver(body, { secret: '' }),
      deliver(body, { secret: null }),
    ]) {
      const refused = await attempt;
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ detail: expect.any(String), error_code: 'forbidden' });
    }
    expect((await messengerStatus(record.id)).method.status).toBe('pending');
    // The refused deliveries did not take the update id: the genuine delivery still completes it.
    expect((await deliver(body)).status).toBe(200);
    expect((await messengerStatus(record.id)).method.status).toBe('satisfied');

    const graph = await t.graphql('mutation($u: JSONObject!) { receiveMessengerUpdate(secret: "nope", update: $u) }', { u: update('hi') });
    expect(graph.body.errors?.[0].extensions.code).toBe('forbidden');
  });

  it('ignores a challenge sent from another account, and logs that without the challenge', async () => {
    const record = await messengerDraft();
    const step = await startMessenger(record.id);
    const received = await deliver(update(`/start ${step.challenge}`, { id: 77, username: 'mallory' }));
    expect(received).toMatchObject({ status: 200, body: { ok: true } });
    expect((await messengerStatus(record.id)).method.status).toBe('pending');
    const logs = t.logs();
    expect(logs).toContain('sent by an account other than the participant');
    expect(logs).not.toContain(step.challenge);
  });

  it('acknowledges updates that complete nothing: unknown challenges, plain chatter, other update kinds', async () => {
    const record = await messengerDraft();
    await startMessenger(record.id);
    expect(await deliver(update('/start SIGN-ZZZZZZZZ'))).toMatchObject({ status: 200, body: { ok: true } });
    expect(await deliver(update('hello bot'))).toMatchObject({ status: 200, body: { ok: true } });
    expect(await deliver({ update_id: nextUpdateId++, my_chat_member: { chat: { id: 42 } } })).toMatchObject({ status: 200, body: { ok: true } });
    expect((await messengerStatus(record.id)).method.status).toBe('pending');
    const malformed = await deliver({ message: { text: 'no update id' } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['body', 'update_id'] });
  });

  it('has nothing to submit: the platform completes the method', async () => {
    const record = await messengerDraft();
    await startMessenger(record.id);
    const refused = await t.request('POST', path(record.id, '/methods/messenger/submit'), { token, body: { code: '123456' } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ type: 'method_completes_outside', msg: expect.stringContaining('@record_signing_bot') });
  });

  it('expires an unanswered challenge after ten minutes; a new start issues a fresh one', async () => {
    const record = await messengerDraft();
    const step = await startMessenger(record.id);
    clock.advance(11 * 60 * 1000);
    expect((await deliver(update(`/start ${step.challenge}`))).status).toBe(200);
    expect((await messengerStatus(record.id)).method.status).toBe('pending');

    const refreshed = await t.request('POST', path(record.id, '/methods/messenger/refresh'), { token });
    expect(refreshed.status).toBe(200);
    expect(messengerOf(refreshed.body)).toMatchObject({ status: 'failed', step: null });
    const rows = await t.app.orm.em
      .fork()
      .execute<{ failure_reason: string }[]>(`select m.failure_reason from signature_methods m join signature_executions e on e.id = m.execution_id where e.record_id = ? and m.method_type = 'messenger'`, [
        record.id,
      ]);
    expect(rows[0]!.failure_reason).toBe('expired');

    const fresh = await startMessenger(record.id);
    expect(fresh.challenge).not.toBe(step.challenge);
    expect((await deliver(update(`/start ${fresh.challenge}`))).status).toBe(200);
    expect((await messengerStatus(record.id)).method.status).toBe('satisfied');
  });

  it('never writes the webhook secret to the log', () => {
    expect(t.logs()).toContain('/api/v1/inbound/messenger?secret=[redacted]');
    expect(t.logs()).not.toContain(SECRET);
  });
});

describe('Messenger webhook without a configured secret', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('refuses every update with 403', async () => {
    const body = { update_id: 1, message: { message_id: 1, from: { id: 42 }, chat: { id: 42, type: 'private' }, date: 0, text: 'hi' } };
    for (const path of ['/api/v1/inbound/messenger', '/api/v1/inbound/messenger?secret=', '/api/v1/inbound/messenger?secret=anything-at-all-0123']) {
      const refused = await t.request('POST', path, { body });
      expect(refused).toMatchObject({ status: 403, body: { error_code: 'forbidden' } });
    }
  });
});
