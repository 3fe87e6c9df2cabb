import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

describe('Identity graph', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  async function linkCode(email: string) {
    const before = t.smtp.messages.length;
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'contact_point_link' } });
    expect(requested.status).toBe(200);
    const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before);
    expect(mail.subject).toBe('Your code to link this address');
    return { verification_event_id: requested.body.verification_event_id as string, code: /code is (\d{6})/.exec(mail.text)![1]! };
  }

  it('links a second verified address to the caller and lists both', async () => {
    const token = await t.signIn('carol@example.com');
    const proof = await linkCode('carol.work@example.com');
    const linked = await t.request('POST', '/api/v1/identity/link', { token, body: proof });
    expect(linked.status).toBe(200);
    expect(linked.body.contact_point).toMatchObject({ type: 'email', value: 'carol.work@example.com', first_verified_at: expect.any(String) });

    const points = await t.request('GET', '/api/v1/identity/contact-points', { token });
    expect(points.body.contact_points.map((p: { value: string }) => p.value)).toEqual(['carol@example.com', 'carol.work@example.com']);
  });

  it('lets the linked address reach records addressed to it', async () => {
    const initiator = await t.signIn('dave@example.com');
    const created = await t.request('POST', '/api/v1/agreements', {
      token: initiator,
      body: agreementBody({ parties: [{ display_name: 'Erin', contact_point_value: 'erin.work@example.com' }] }),
    });
    const erin = await t.signIn('erin@example.com');
    expect((await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: erin })).status).toBe(404);
    const linked = await t.request('POST', '/api/v1/identity/link', { token: erin, body: await linkCode('erin.work@example.com') });
    expect(linked.status).toBe(200);
    const read = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token: erin });
    expect(read.status).toBe(200);
    const own = read.body.parties.find((p: { role: string }) => p.role === 'party');
    expect(own.contact_point_value).toBe('erin.work@example.com');
    const list = await t.request('GET', '/api/v1/identity/agreements', { token: erin });
    expect(list.body.agreements.map((r: { id: string }) => r.id)).toContain(created.body.id);
  });

  it('merges the graphs when the linked address already had an identity', async () => {
    const home = await t.signIn('frank@example.com');
    const work = await t.signIn('frank.work@example.com');
    const workRecord = await t.request('POST', '/api/v1/agreements', { token: work, body: agreementBody() });
    const linked = await t.request('POST', '/api/v1/identity/link', { token: home, body: await linkCode('frank.work@example.com') });
    expect(linked.status).toBe(200);
    const read = await t.request('GET', `/api/v1/agreements/${workRecord.body.id}`, { token: home });
    expect(read.status).toBe(200);
    const points = await t.request('GET', '/api/v1/identity/contact-points', { token: home });
    expect(points.body.contact_points.map((p: { value: string }) => p.value).sort()).toEqual(['frank.work@example.com', 'frank@example.com']);
  });

  it('refuses an authentication code for linking, and a link code for signing in', async () => {
    const token = await t.signIn('grace@example.com');
    const before = t.smtp.messages.length;
    const auth = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'grace2@example.com', purpose: 'authenticate' } });
    const code = await t.smtp.codeFor('grace2@example.com', before);
    const refused = await t.request('POST', '/api/v1/identity/link', { token, body: { verification_event_id: auth.body.verification_event_id, code } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].type).toBe('otp_purpose_mismatch');

    const link = await linkCode('grace3@example.com');
    const signIn = await t.request('POST', '/api/v1/verification/verify-otp', { body: link });
    expect(signIn.status).toBe(422);
  });

  it('needs a bearer token', async () => {
    expect((await t.request('GET', '/api/v1/identity/contact-points')).status).toBe(401);
    expect((await t.request('POST', '/api/v1/identity/link', { body: { verification_event_id: 'x', code: '123456' } })).status).toBe(401);
  });
});
