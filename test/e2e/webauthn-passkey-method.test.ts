import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { ConfigError, loadConfig } from '../../src/config.js';
import { PasskeyCredential } from '../../src/domain/ceremonies/entities.js';
import { agreementBody, startTestApp, type HttpResult, type TestApp } from '../support/harness.js';
import { SoftwareAuthenticator } from '../support/software-authenticator.js';

const ORIGIN = 'https://sign.example.test';

describe('Signature method webauthn_passkey', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ WEBAUTHN_RP_ID: 'sign.example.test', WEBAUTHN_ORIGIN: ORIGIN, OTP_REQUESTS_PER_WINDOW: '50' });
  });
  afterAll(async () => {
    await t.stop();
  });

  const path = (id: string, rest = '') => `/api/v1/agreements/${id}/signature-execution${rest}`;
  const passkey = (execution: { methods: { method_type: string }[] }) => execution.methods.find((m) => m.method_type === 'webauthn_passkey') as any;
  const optionsOf = (execution: any) => JSON.parse(passkey(execution).step.challenge);

  async function draft(token: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    expect((await t.request('POST', path(created.body.id), { token })).status).toBe(200);
    return created.body.id as string;
  }

  async function start(token: string, record: string): Promise<any> {
    const started = await t.request('POST', path(record, '/methods/webauthn_passkey/start'), { token, body: {} });
    expect(started.status).toBe(200);
    expect(passkey(started.body).status).toBe('pending');
    return optionsOf(started.body);
  }

  const submit = (token: string, record: string, credential: unknown): Promise<HttpResult> =>
    t.request('POST', path(record, '/methods/webauthn_passkey/submit'), { token, body: { credential } });

  function expectRefused(result: HttpResult, type: string): void {
    expect(result.status).toBe(422);
    expect(result.body.detail[0]).toMatchObject({ loc: ['body', 'credential'], type });
  }

  /** A new signer registers a passkey on a first record; returns the assertion step's options. */
  async function enroll(token: string, authenticator: SoftwareAuthenticator, record: string): Promise<any> {
    const registration = await start(token, record);
    const registered = await submit(token, record, authenticator.register(registration));
    expect(registered.status).toBe(200);
    return optionsOf(registered.body);
  }

  it('registers a passkey on first use, then signs with an assertion and finalizes', async () => {
    const token = await t.signIn('pk-first@example.com');
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN, attestation: 'packed' });
    const record = await draft(token);

    const registration = await start(token, record);
    expect(registration).toMatchObject({
      rp: { id: 'sign.example.test', name: 'Record Signing' },
      user: { id: expect.any(String), name: 'pk-first@example.com' },
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      excludeCredentials: [],
    });
    const registered = await submit(token, record, authenticator.register(registration));
    expect(registered.status).toBe(200);
    // Registration only proves possession at enrollment: the signature needs an assertion.
    expect(registered.body).toMatchObject({ satisfied_method_count: 0, can_finalize: false });
    expect(passkey(registered.body)).toMatchObject({ status: 'pending', step: { prompt: expect.stringContaining('version 1') } });
    const request = optionsOf(registered.body);
    const credentialId = [...authenticator.passkeys.keys()][0];
    expect(request).toMatchObject({ rpId: 'sign.example.test', userVerification: 'preferred', allowCredentials: [{ id: credentialId }] });
    expect(request.challenge).not.toBe(registration.challenge);

    const early = await t.request('POST', path(record, '/finalize'), { token });
    expect(early).toMatchObject({ status: 409, body: { error_code: 'signature_incomplete' } });

    const assertion = authenticator.assert(request);
    const signed = await submit(token, record, assertion);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ satisfied_method_count: 1, can_finalize: true });
    expect(passkey(signed.body)).toMatchObject({ status: 'satisfied', step: null, satisfied_at: expect.any(String) });

    // The same assertion again: the method is satisfied for this version, nothing more to sign.
    const replayed = await submit(token, record, assertion);
    expect(replayed).toMatchObject({ status: 409, body: { error_code: 'conflict' } });

    const finalized = await t.request('POST', path(record, '/finalize'), { token });
    expect(finalized.status).toBe(200);
    expect(finalized.body.initiator_signature).toMatchObject({ status: 'finalized', confirmed_version: 1 });

    const stored = await t.app.orm.em.fork().findOneOrFail(PasskeyCredential, { credentialId });
    expect(stored).toMatchObject({ counter: 1, transports: ['internal'], lastUsedAt: expect.any(Date) });
    expect(typeof stored.counter).toBe('number');
  });

  it('goes straight to an assertion on the next record of the same identity', async () => {
    const token = await t.signIn('pk-second@example.com');
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const first = await draft(token);
    expect((await submit(token, first, authenticator.assert(await enroll(token, authenticator, first)))).status).toBe(200);

    const second = await draft(token);
    const request = await start(token, second);
    expect(request).toMatchObject({ rpId: 'sign.example.test', allowCredentials: [{ id: [...authenticator.passkeys.keys()][0] }] });
    expect(request).not.toHaveProperty('user');
    const signed = await submit(token, second, authenticator.assert(request));
    expect(signed.body).toMatchObject({ satisfied_method_count: 1, can_finalize: true });
    expect((await t.request('POST', path(second, '/finalize'), { token })).status).toBe(200);
  });

  it('answers each challenge once: replayed registrations and superseded challenges are refused', async () => {
    const token = await t.signIn('pk-replay@example.com');
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const record = await draft(token);
    const registration = await start(token, record);
    const registrationResponse = authenticator.register(registration);
    const registered = await submit(token, record, registrationResponse);
    expect(registered.status).toBe(200);
    expectRefused(await submit(token, record, registrationResponse), 'challenge_replayed');

    // Starting again replaces the challenge: an assertion for the old one no longer signs.
    const stale = authenticator.assert(optionsOf(registered.body));
    const fresh = await start(token, record);
    expectRefused(await submit(token, record, stale), 'challenge_replayed');
    const signed = await submit(token, record, authenticator.assert(fresh));
    expect(signed.body).toMatchObject({ can_finalize: true });
  });

  it('refuses a wrong origin, a tampered signature and a counter regression without changing state', async () => {
    const token = await t.signIn('pk-tamper@example.com');
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const first = await draft(token);
    expect((await submit(token, first, authenticator.assert(await enroll(token, authenticator, first)))).status).toBe(200);
    const record = await draft(token);
    const request = await start(token, record);

    expectRefused(await submit(token, record, authenticator.assert(request, { origin: 'https://evil.example' })), 'webauthn_invalid');

    const tampered: AuthenticationResponseJSON = authenticator.assert(request);
    const signature = Buffer.from(tampered.response.signature, 'base64url');
    signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0x01, signature.length - 1);
    tampered.response.signature = signature.toString('base64url');
    expectRefused(await submit(token, record, tampered), 'webauthn_invalid');

    expectRefused(await submit(token, record, authenticator.assert(request, { counter: 1 })), 'counter_regression');
    expectRefused(await submit(token, record, { id: 'x' }), 'webauthn_invalid');
    // The REST schema already refuses a credential that is not an object.
    expect((await submit(token, record, 'not an object')).body.detail[0]).toMatchObject({ loc: ['body', 'credential'] });

    const unchanged = await t.request('GET', path(record), { token });
    expect(passkey(unchanged.body)).toMatchObject({ status: 'pending' });
    expect(optionsOf(unchanged.body).challenge).toBe(request.challenge);
    const signed = await submit(token, record, authenticator.assert(request, { counter: 7 }));
    expect(signed.body).toMatchObject({ can_finalize: true });
  });

  it('binds the challenge to the record and version: an assertion for another one never signs', async () => {
    const token = await t.signIn('pk-binding@example.com');
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const first = await draft(token);
    expect((await submit(token, first, authenticator.assert(await enroll(token, authenticator, first)))).status).toBe(200);

    const recordA = await draft(token);
    const recordB = await draft(token);
    const forA = authenticator.assert(await start(token, recordA));
    await start(token, recordB);
    expectRefused(await submit(token, recordB, forA), 'challenge_mismatch');

    // A body change makes version 2: the version-1 assertion is worthless there.
    const patched = await t.request('PATCH', `/api/v1/agreements/${recordA}`, {
      token,
      body: { body: 'We agree to share the garden equally, and to plant tomatoes together.' },
    });
    expect(patched.body.current_version).toBe(2);
    expect((await t.request('POST', path(recordA), { token })).body.record_version).toBe(2);
    const forVersion2 = await start(token, recordA);
    expectRefused(await submit(token, recordA, forA), 'challenge_mismatch');
    const signed = await submit(token, recordA, authenticator.assert(forVersion2));
    expect(signed.body).toMatchObject({ record_version: 2, can_finalize: true });
  });

  it('works over GraphQL with submitSignatureMethod(input: {credential})', async () => {
    const token = await t.signIn('pk-graphql@example.com');
    const authenticator = new SoftwareAuthenticator({ origin: ORIGIN });
    const record = await draft(token);
    const fields = 'canFinalize satisfiedMethodCount methods { methodType status step { challenge } }';
    const method = (data: any) => data.methods.find((m: { methodType: string }) => m.methodType === 'webauthn_passkey');
    const started = await t.graphql(`mutation($id: String!) { startSignatureMethod(recordId: $id, methodType: webauthn_passkey) { ${fields} } }`, { id: record }, { token });
    expect(started.body.errors).toBeUndefined();
    const submitDoc = `mutation($id: String!, $credential: JSONObject!) {
      submitSignatureMethod(recordId: $id, methodType: webauthn_passkey, input: { credential: $credential }) { ${fields} }
    }`;
    const registration = JSON.parse(method(started.body.data.startSignatureMethod).step.challenge);
    const registered = await t.graphql(submitDoc, { id: record, credential: authenticator.register(registration) }, { token });
    expect(registered.body.errors).toBeUndefined();
    const request = JSON.parse(method(registered.body.data.submitSignatureMethod).step.challenge);

    const wrongOrigin = await t.graphql(submitDoc, { id: record, credential: authenticator.assert(request, { origin: 'http://localhost' }) }, { token });
    expect(wrongOrigin.body.errors![0].extensions).toMatchObject({ code: 'validation_error', issues: [{ path: ['credential'], type: 'webauthn_invalid' }] });
    const signed = await t.graphql(submitDoc, { id: record, credential: authenticator.assert(request) }, { token });
    expect(signed.body.errors).toBeUndefined();
    expect(signed.body.data.submitSignatureMethod).toMatchObject({ canFinalize: true, satisfiedMethodCount: 1 });
    expect(method(signed.body.data.submitSignatureMethod)).toMatchObject({ status: 'satisfied', step: null });
  });

  it('derives the relying party from PUBLIC_BASE_URL unless configured', () => {
    const base = { DATABASE_URL: 'postgres://localhost/x', PUBLIC_BASE_URL: 'https://sign.example.com:8443/app' };
    expect(loadConfig(base).webauthn).toEqual({ rpId: 'sign.example.com', rpName: 'Record Signing', origin: 'https://sign.example.com:8443' });
    expect(loadConfig({ ...base, WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_RP_NAME: 'Acme' }).webauthn).toMatchObject({ rpId: 'example.com', rpName: 'Acme' });
    expect(() => loadConfig({ ...base, WEBAUTHN_RP_ID: 'other.example' })).toThrow(ConfigError);
  });
});
