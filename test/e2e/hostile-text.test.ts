import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

const REQUEST_OTP = 'mutation($input: RequestOtpInput!) { requestOtp(input: $input) { verificationEventId } }';

/** NUL and invisible characters get the same clear validation error on every transport, never a 500. */
describe('Hostile text', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100' });
    token = await t.signIn('text@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  it.each([
    ['a NUL in the body', { body: 'We agree to share the garden\u0000 equally every week.' }, ['body', 'body'], 'control_character'],
    ['a NUL in the title', { title: 'Garden\u0000' }, ['body', 'title'], 'control_character'],
    ['a right-to-left override in the title', { title: 'Garden \u202etxt' }, ['body', 'title'], 'bidi_control'],
  ])('REST answers 422 for %s', async (_name, overrides, loc, type) => {
    const response = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody(overrides) });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it.each([
    ['a NUL', 'nul\u0000@example.com'],
    ['a zero-width space', 'zw\u200b@example.com'],
  ])('refuses an email with %s alike over REST and GraphQL', async (_name, email) => {
    const rest = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    expect(rest.status).toBe(422);
    const graph = await t.graphql(REQUEST_OTP, { input: { email, purpose: 'authenticate' } });
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('validation_error');
    expect(graph.body.errors?.[0]?.extensions?.issues?.[0]).toMatchObject({ path: ['email'], type: 'invalid_email' });
  });

  it('answers 422 for a NUL in an API key name', async () => {
    const key = await t.request('POST', '/api/v1/api-keys', { token, body: { name: 'ci\u0000', scopes: ['retrieve'] } });
    expect(key.status).toBe(422);
  });
});
