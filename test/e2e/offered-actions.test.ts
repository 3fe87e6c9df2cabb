import { RECORD_ACTIONS, type RecordAction } from '../../src/domain/records/lifecycle.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

type Reader = 'alice' | 'bob' | 'carol';
type Stage = 'draft' | 'pending_confirmation' | 'counter_under_review' | 'sealed';
type Record = { id: string; status: string; available_actions: RecordAction[]; active_counter: { id: string } | null };

const EMAIL: { [R in Reader]: string } = { alice: 'alice-offer@example.com', bob: 'bob-offer@example.com', carol: 'carol-offer@example.com' };
const NEW_TERMS = 'We agree to share the garden equally and to water it every other evening.';

/**
 * What a record offers its reader (`available_actions`, from the lifecycle table) is exactly what the
 * service accepts: every offered move succeeds (each on a record of its own), and every move not
 * offered is refused and changes nothing. A witnessed agreement: Alice initiates, Bob is a party,
 * Carol a witness; each stage is reached by the real moves.
 */
describe('Offered moves are the accepted moves', () => {
  let t: TestApp;
  const tokens = {} as { [R in Reader]: string };

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '1000', METHOD_STARTS_PER_WINDOW: '1000', INVITATION_RESENDS_PER_HOUR: '1000' });
    for (const reader of ['alice', 'bob', 'carol'] as const) tokens[reader] = await t.signIn(EMAIL[reader]);
  });
  afterAll(async () => {
    await t.stop();
  });

  const path = (id: string, rest = '') => `/api/v1/agreements/${id}${rest}`;
  const read = async (id: string, reader: Reader) => (await t.request('GET', path(id), { token: tokens[reader] })).body as Record;

  async function recordAt(stage: Stage): Promise<string> {
    const created = await t.request('POST', '/api/v1/agreements', {
      token: tokens.alice,
      body: agreementBody({
        type: 'witnessed_agreement',
        parties: [{ display_name: 'Bob', contact_point_value: EMAIL.bob }],
        witnesses: [{ display_name: 'Carol', contact_point_value: EMAIL.carol }],
      }),
    });
    const id = created.body.id as string;
    if (stage === 'draft') return id;
    await signWithEmailOtp(t, tokens.alice, EMAIL.alice, id);
    expect((await t.request('POST', path(id, '/submit'), { token: tokens.alice })).status).toBe(200);
    if (stage === 'counter_under_review') {
      expect((await t.request('POST', path(id, '/counter'), { token: tokens.bob, body: { proposed_body: NEW_TERMS } })).status).toBe(201);
    }
    if (stage === 'sealed') {
      await signWithEmailOtp(t, tokens.bob, EMAIL.bob, id);
      expect((await signWithEmailOtp(t, tokens.carol, EMAIL.carol, id)).body.status).toBe('sealed');
    }
    return id;
  }

  /** Asks for one move as `reader`; answers the HTTP status. */
  async function attempt(action: RecordAction, id: string, reader: Reader): Promise<number> {
    const token = tokens[reader];
    const counter = (await read(id, 'alice')).active_counter?.id ?? '00000000-0000-4000-8000-000000000000';
    switch (action) {
      case 'edit':
        return (await t.request('PATCH', path(id), { token, body: { title: 'Edited' } })).status;
      case 'submit':
        return (await t.request('POST', path(id, '/submit'), { token })).status;
      case 'cancel_draft':
      case 'cancel':
        return (await t.request('POST', path(id, '/cancel'), { token, body: {} })).status;
      case 'sign': {
        // Signing is the ceremony's first step that commits to anything: a method started.
        const execution = await t.request('POST', path(id, '/signature-execution'), { token });
        if (execution.status >= 400) return execution.status;
        const before = t.smtp.messages.length;
        const started = await t.request('POST', path(id, '/signature-execution/methods/email_otp/start'), { token, body: {} });
        // Its code mail is awaited here, so that no later ceremony of this reader reads it for its own.
        if (started.status < 300) await t.smtp.waitFor(EMAIL[reader], (m) => t.smtp.messages.indexOf(m) >= before && m.subject === 'Your signature code');
        return started.status;
      }
      case 'decline':
        return (await t.request('POST', path(id, '/decline'), { token, body: {} })).status;
      case 'propose_counter':
        return (await t.request('POST', path(id, '/counter'), { token, body: { proposed_body: NEW_TERMS } })).status;
      case 'resolve_counter':
        return (await t.request('POST', path(id, `/counter/${counter}/resolve`), { token, body: { decision: 'reject' } })).status;
      case 'withdraw_counter':
        return (await t.request('POST', path(id, `/counter/${counter}/withdraw`), { token })).status;
      case 'rescind':
        return (await t.request('POST', path(id, '/rescind'), { token })).status;
      case 'amend':
        return (await t.request('POST', path(id, '/amend'), { token, body: { body: NEW_TERMS } })).status;
    }
  }

  /** `POST …/cancel` is both moves: it cancels a draft in place and drafts the cancellation of a sealed record. */
  const route = (action: RecordAction) => (action === 'cancel_draft' ? 'cancel' : action);

  const cases: [Stage, Reader, RecordAction[]][] = [
    ['draft', 'alice', ['edit', 'cancel_draft', 'sign']],
    ['pending_confirmation', 'alice', ['rescind']],
    ['pending_confirmation', 'bob', ['sign', 'decline', 'propose_counter']],
    ['pending_confirmation', 'carol', ['sign', 'decline']],
    ['counter_under_review', 'alice', ['resolve_counter', 'rescind']],
    ['counter_under_review', 'bob', ['decline', 'withdraw_counter']],
    ['counter_under_review', 'carol', ['decline']],
    ['sealed', 'alice', ['amend', 'cancel']],
    ['sealed', 'bob', ['amend', 'cancel']],
    ['sealed', 'carol', []],
  ];

  it.each(cases)('%s, read by %s: offers %j, and the service accepts exactly those', async (stage, reader, offered) => {
    const shared = await recordAt(stage);
    const before = await read(shared, reader);
    expect(before.available_actions).toEqual(offered);
    // Every move not offered is refused, and the record is as it was.
    for (const action of RECORD_ACTIONS.filter((a) => !offered.map(route).includes(route(a)))) {
      const status = await attempt(action, shared, reader);
      expect([action, status >= 400 && status < 500]).toEqual([action, true]);
    }
    const after = await read(shared, reader);
    expect([after.status, after.available_actions]).toEqual([before.status, offered]);
    // Every offered move succeeds, each on a record of its own at this stage.
    for (const action of offered) {
      const status = await attempt(action, await recordAt(stage), reader);
      expect([action, status]).toEqual([action, expect.any(Number)]);
      expect([action, status >= 200 && status < 300]).toEqual([action, true]);
    }
  }, 60_000);
});
