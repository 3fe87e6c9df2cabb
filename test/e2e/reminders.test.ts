import { ManualClock } from '../support/clock.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { startMessengerPlatform } from '../support/provider-servers.js';
import { waitFor } from '../support/wait.js';

const DAY_MS = 86_400_000;
const MESSENGER_SECRET = 'messenger-webhook-secret-0123456789';

describe('Reminders to participants who have not signed', () => {
  let t: TestApp;
  let second: TestApp;
  let platform: Awaited<ReturnType<typeof startMessengerPlatform>>;
  const clock = new ManualClock();

  beforeAll(async () => {
    platform = await startMessengerPlatform();
    // JOBS_ENABLED=false (the harness default): no background sweep; the test runs the sweeps itself.
    const settings = {
      OTP_REQUESTS_PER_WINDOW: '100',
      METHOD_STARTS_PER_WINDOW: '100',
      REMINDER_EVERY_DAYS: '3',
      REMINDER_MAX_PER_PARTY: '3',
      MESSENGER_WEBHOOK_SECRET: MESSENGER_SECRET,
      MESSENGER_API_BASE: platform.url,
      MESSENGER_BOT_TOKEN: '123456:reminder-bot-token',
    };
    t = await startTestApp(settings, { clock });
    second = await startTestApp(settings, { clock, sameDatabaseAs: t });
  });
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
    await platform?.close();
  });

  const reminders = (address: string) => t.smtp.messages.filter((m) => m.to.includes(address) && m.subject.startsWith('Reminder:'));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
  /** Both instances sweep at the same moment, twice each; answers how many reminders each instance sent. */
  const sweepBoth = async (): Promise<[number, number]> => {
    const [a1, b1, a2, b2] = await Promise.all([t, second, t, second].map((app) => app.app.services.reminders.sweep()));
    return [a1! + a2!, b1! + b2!];
  };

  it('mails one reminder to the party who has not signed, none to the one who has, once across two instances, none once turned off', async () => {
    const alice = await t.signIn('alice-remind@example.com');
    const bob = await t.signIn('bob-remind@example.com');
    const parties = [
      { display_name: 'Bob', contact_point_value: 'bob-remind@example.com' },
      { display_name: 'Carol', contact_point_value: 'carol-remind@example.com' },
    ];
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ parties, reminders: { every_days: 2 } }) });
    expect(created.status).toBe(201);
    expect(created.body.reminders).toEqual({ enabled: true, every_days: 2, before_expiry_days: null });
    const id = created.body.id as string;
    expect((await signWithEmailOtp(t, alice, 'alice-remind@example.com', id)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${id}/submit`, { token: alice })).body.status).toBe('pending_confirmation');
    expect((await signWithEmailOtp(t, bob, 'bob-remind@example.com', id)).body.status).toBe('pending_confirmation');

    // Not due yet: nothing goes out.
    expect(await sweepBoth()).toEqual([0, 0]);

    clock.advance(2 * DAY_MS + 60_000);
    const sent = await sweepBoth();
    expect(sent[0] + sent[1]).toBe(1);
    const mail = await t.smtp.waitFor('carol-remind@example.com', (m) => m.subject.startsWith('Reminder:'));
    expect(mail.text).toContain(`/records/${created.body.agr_reference}`);
    // Sweeping again at once finds nothing due: the reminder was counted with its mail.
    expect(await sweepBoth()).toEqual([0, 0]);
    await settle();
    expect(reminders('carol-remind@example.com')).toHaveLength(1);
    expect(reminders('bob-remind@example.com')).toHaveLength(0);

    // The initiator turns reminders off: later sweeps send nothing. Sessions expired with the clock: sign in again.
    const aliceAgain = await t.signIn('alice-remind@example.com');
    const carol = await t.signIn('carol-remind@example.com');
    const refused = await t.request('PUT', `/api/v1/agreements/${id}/reminders`, { token: carol, body: { enabled: false } });
    expect(refused.status).toBe(403);
    const off = await t.request('PUT', `/api/v1/agreements/${id}/reminders`, { token: aliceAgain, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.reminders).toMatchObject({ enabled: false });
    clock.advance(3 * DAY_MS);
    expect(await sweepBoth()).toEqual([0, 0]);

    // On again: the reminder now due goes out, once.
    const aliceThird = await t.signIn('alice-remind@example.com');
    const on = await t.request('PUT', `/api/v1/agreements/${id}/reminders`, { token: aliceThird, body: { enabled: true } });
    expect(on.body.reminders).toMatchObject({ enabled: true });
    const again = await sweepBoth();
    expect(again[0] + again[1]).toBe(1);
    await t.smtp.waitFor('carol-remind@example.com', (m) => m.subject.startsWith('Reminder:') && m !== mail);
    await settle();
    expect(reminders('carol-remind@example.com')).toHaveLength(2);
    expect(reminders('bob-remind@example.com')).toHaveLength(0);
    const offAgain = await t.request('PUT', `/api/v1/agreements/${id}/reminders`, { token: aliceThird, body: { enabled: false } });
    expect(offAgain.status).toBe(200);
  });

  it('in sequential order reminds only the party whose turn it is, and sends the "before expiry" reminder once', async () => {
    const alice = await t.signIn('alice-remind@example.com');
    const parties = [
      { display_name: 'Dan', contact_point_value: 'dan-remind@example.com' },
      { display_name: 'Erin', contact_point_value: 'erin-remind@example.com' },
    ];
    const body = agreementBody({ parties, signing_order: 'sequential', lapse_days: 3, reminders: { every_days: 30, before_expiry_days: 1 } });
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await signWithEmailOtp(t, alice, 'alice-remind@example.com', id)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${id}/submit`, { token: alice })).body.status).toBe('pending_confirmation');

    clock.advance(DAY_MS);
    expect(await sweepBoth()).toEqual([0, 0]);
    // Within a day of the expiry: Dan (whose turn it is) gets the one "before expiry" reminder; Erin, not yet invited, none.
    clock.advance(DAY_MS + 60_000);
    const sent = await sweepBoth();
    expect(sent[0] + sent[1]).toBe(1);
    const mail = await t.smtp.waitFor('dan-remind@example.com', (m) => m.subject.startsWith('Reminder:'));
    expect(mail.subject).toContain('lapses on');
    clock.advance(12 * 3_600_000);
    expect(await sweepBoth()).toEqual([0, 0]);
    await settle();
    expect(reminders('dan-remind@example.com')).toHaveLength(1);
    expect(reminders('erin-remind@example.com')).toHaveLength(0);
  });

  it('reminds a messenger participant by a message from the bot and an email participant by mail, once each across two instances', async () => {
    // Bob writes to the bot first (a bot can only write to people who did).
    const hello = await t.request('POST', `/api/v1/inbound/messenger?secret=${MESSENGER_SECRET}`, {
      body: { update_id: 71, message: { message_id: 1, from: { id: 7171, username: 'Bob_Remind' }, chat: { id: 7171, type: 'private' }, date: 1, text: '/start' } },
    });
    expect(hello.status).toBe(200);
    const alice = await t.signIn('alice-remind@example.com');
    const parties = [
      { display_name: 'Bob', contact_point_type: 'messenger', contact_point_value: '@Bob_Remind' },
      { display_name: 'Fay', contact_point_value: 'fay-remind@example.com' },
    ];
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ parties, title: 'Bike loan', reminders: { every_days: 2 } }) });
    expect(created.status).toBe(201);
    const { id, agr_reference: reference } = created.body as { id: string; agr_reference: string };
    expect((await signWithEmailOtp(t, alice, 'alice-remind@example.com', id)).status).toBe(200);
    expect((await t.request('POST', `/api/v1/agreements/${id}/submit`, { token: alice })).body.status).toBe('pending_confirmation');
    const toBob = () => platform.sent.filter((call) => call.body.chat_id === '7171');
    // The messenger outbox's workers (one per instance) send it once the submit committed.
    await waitFor(async () => toBob().length === 1);
    expect(toBob()[0]!.body.text).not.toContain('Reminder');

    clock.advance(2 * DAY_MS + 60_000);
    const sent = await sweepBoth();
    expect(sent[0] + sent[1]).toBe(2);
    expect(await sweepBoth()).toEqual([0, 0]);
    await waitFor(async () => toBob().length >= 2);
    await settle();
    expect(toBob()).toHaveLength(2);
    const reminder = toBob()[1]!;
    expect(reminder.path).toBe('/bot123456:reminder-bot-token/sendMessage');
    expect(reminder.body.text).toMatch(/^Reminder: you are invited to sign “Bike loan”/);
    expect(reminder.body.text).toContain(`/records/${reference}`);
    await t.smtp.waitFor('fay-remind@example.com', (m) => m.subject.startsWith('Reminder:'));
    await settle();
    expect(reminders('fay-remind@example.com')).toHaveLength(1);
    expect(t.logs()).not.toContain('reminder-bot-token');
  });
});
