import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { startMessengerPlatform } from '../support/provider-servers.js';
import { waitFor } from '../support/wait.js';

const SECRET = 'messenger-webhook-secret-0123456789';
const BOT_TOKEN = '123456:bot-token-never-logged';

describe('Messenger invitations', () => {
  let t: TestApp;
  let platform: Awaited<ReturnType<typeof startMessengerPlatform>>;

  beforeAll(async () => {
    platform = await startMessengerPlatform();
    t = await startTestApp({ MESSENGER_WEBHOOK_SECRET: SECRET, MESSENGER_API_BASE: platform.url, MESSENGER_BOT_TOKEN: BOT_TOKEN });
  });
  afterAll(async () => {
    await t.stop();
    await platform.close();
  });

  it('invites participants who wrote to the bot, and says so in the log for those who have not', async () => {
    const hello = await t.request('POST', `/api/v1/inbound/messenger?secret=${SECRET}`, {
      body: { update_id: 1, message: { message_id: 1, from: { id: 4242, username: 'Bob_T' }, chat: { id: 4242, type: 'private' }, date: 1, text: '/start' } },
    });
    expect(hello.status).toBe(200);

    const alice = await t.signIn('alice@example.com');
    const created = await t.request('POST', '/api/v1/agreements', {
      token: alice,
      body: agreementBody({
        parties: [
          { display_name: 'Bob', contact_point_type: 'messenger', contact_point_value: '@Bob_T' },
          { display_name: 'Carol', contact_point_type: 'messenger', contact_point_value: 'carol_x' },
        ],
      }),
    });
    await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id);
    const submitted = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
    expect(submitted.status).toBe(200);

    // The messenger outbox's worker sends Bob's invitation; Carol's waits for her to write to the bot.
    await waitFor(async () => platform.sent.length === 1 && t.logs().includes('messenger invitation not sent'));
    expect(platform.sent).toHaveLength(1);
    expect(platform.sent[0]!.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    expect(platform.sent[0]!.body.chat_id).toBe('4242');
    expect(platform.sent[0]!.body.text).toContain(`/records/${created.body.agr_reference}`);
    expect(t.logs()).toContain('messenger invitation not sent');
    expect(t.logs()).not.toContain(BOT_TOKEN);
    expect(t.logs()).not.toContain(SECRET);

    // Carol's invitation is retried: once she writes to the bot, the next attempt reaches her.
    const carol = await t.request('POST', `/api/v1/inbound/messenger?secret=${SECRET}`, {
      body: { update_id: 2, message: { message_id: 2, from: { id: 5151, username: 'carol_x' }, chat: { id: 5151, type: 'private' }, date: 2, text: '/start' } },
    });
    expect(carol.status).toBe(200);
    await waitFor(async () => platform.sent.some((call) => call.body.chat_id === '5151'));
    expect(platform.sent.filter((call) => call.body.chat_id === '5151')).toHaveLength(1);
    expect(t.logs()).not.toContain(BOT_TOKEN);
  });
});
