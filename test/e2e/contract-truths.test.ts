import { createHash } from 'node:crypto';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const locs = (response: { body: { detail: { loc: unknown[] }[] } }) => response.body.detail.map((issue) => issue.loc);

/** What the served contract says is what the service does (issue 10, "the contract tells the truth"). */
describe('The contract tells the truth', () => {
  let t: TestApp;
  let token: string;
  let document: any;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.signIn('truth@example.com');
    document = await fetch(`${t.url}/api/openapi.json`).then((response) => response.json());
  });
  afterAll(async () => {
    await t.stop();
  });

  it('writes the body limits into the served schemas: raw size, then 10..7000 characters and 2..350 words normalized', () => {
    const { schemas } = document.components;
    for (const schema of ['CreateAgreementRequest', 'CreateDeclarationRequest', 'AmendAgreementRequest']) {
      expect(schemas[schema].properties.body).toMatchObject({
        maxLength: 28000,
        'x-normalized-length': { minimum: 10, maximum: 7000 },
        'x-normalized-words': { minimum: 2, maximum: 350 },
      });
    }
  });

  it('declares the jurisdiction and API key name limits, and both transports keep them', async () => {
    const { schemas } = document.components;
    expect(schemas.CreateAgreementRequest.properties.jurisdiction).toMatchObject({ maxLength: 100 });
    expect(schemas.UpdateAgreementRequest.properties.jurisdiction).toMatchObject({ maxLength: 100 });
    expect(schemas.CreateAPIKeyRequest.properties.name).toMatchObject({ maxLength: 100 });

    expect((await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ jurisdiction: 'j'.repeat(100) }) })).status).toBe(201);
    const longJurisdiction = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ jurisdiction: 'j'.repeat(101) }) });
    expect(longJurisdiction.status).toBe(422);
    expect(locs(longJurisdiction)).toContainEqual(['body', 'jurisdiction']);
    const longName = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'], name: 'n'.repeat(101) } });
    expect(longName.status).toBe(422);
    expect(locs(longName)).toContainEqual(['body', 'name']);

    const graph = await t.graphql(
      'mutation($input: CreateAgreementInput!) { createAgreement(input: $input) { id } }',
      { input: { body: 'We agree to share the garden equally and to water it weekly.', jurisdiction: 'j'.repeat(101), onChainFullText: false, onChainIncludeVerifiedParties: false } },
      { token },
    );
    expect(graph.body.errors![0].extensions).toMatchObject({ code: 'validation_error', issues: [{ path: ['jurisdiction'] }] });
    const graphKey = await t.graphql('mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key } }', { input: { scopes: ['retrieve'], name: 'n'.repeat(101) } }, { token });
    expect(graphKey.body.errors![0].extensions).toMatchObject({ code: 'validation_error', issues: [{ path: ['name'] }] });
  });

  it('refuses unknown properties inside co_notarizers[] like at the top level', async () => {
    const response = await t.request('POST', '/api/v1/notarizations', {
      token,
      body: {
        content_type: 'hash',
        content_hash: sha('contract'),
        label: 'Contract',
        co_notarizers: [{ contact_point_value: 'co@example.com', display_name: 'Co', surprise: true }],
      },
    });
    expect(response.status).toBe(422);
    expect(locs(response)).toContainEqual(['body', 'co_notarizers', 0, 'surprise']);
  });

  it('offers the agreement_confirmation purpose of the contract: its code proves control of the address once and opens no session', async () => {
    expect(document.components.schemas.OTPRequest.properties.purpose.enum).toEqual(['authenticate', 'signature', 'agreement_confirmation', 'contact_point_link']);
    const before = t.smtp.messages.length;
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'truth-confirm@example.com', purpose: 'agreement_confirmation' } });
    expect(requested.status).toBe(200);
    expect(requested.body.purpose).toBe('agreement_confirmation');
    const code = await t.smtp.codeFor('truth-confirm@example.com', before);
    const body = { verification_event_id: requested.body.verification_event_id, code };
    const confirmed = await t.request('POST', '/api/v1/verification/verify-otp', { body });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ verified: true });
    const again = await t.request('POST', '/api/v1/verification/verify-otp', { body });
    expect(again.status).toBe(422);
    expect(JSON.stringify(again.body)).toContain('otp_used');
    // A signature code is not accepted there either: codes never replace each other.
    const beforeSignature = t.smtp.messages.length;
    const signature = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'truth-confirm@example.com', purpose: 'signature' } });
    const signatureCode = await t.smtp.codeFor('truth-confirm@example.com', beforeSignature);
    const refused = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: signature.body.verification_event_id, code: signatureCode } });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('otp_purpose_mismatch');
  });

  it('says verify-otp reads no credentials, and it does not: a bearer header neither helps nor binds', async () => {
    const verifyOtp = document.paths['/api/v1/verification/verify-otp'].post;
    expect(verifyOtp.security).toEqual([]);
    expect(verifyOtp.description).toContain('Credentials sent with it are not read');
    expect(verifyOtp.description).not.toMatch(/Authorization: Bearer` header is optional/);
    // Another person's code verified with this session's header signs that person in, not this identity.
    const before = t.smtp.messages.length;
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'other@example.com', purpose: 'authenticate' } });
    const code = await t.smtp.codeFor('other@example.com', before);
    const verified = await t.request('POST', '/api/v1/verification/verify-otp', { token, body: { verification_event_id: requested.body.verification_event_id, code } });
    expect(verified.status).toBe(200);
    const mine = await t.graphql('{ authenticationStatus { identityId } }', {}, { token });
    expect(verified.body.identity_id).not.toBe(mine.body.data.authenticationStatus.identityId);
    const points = await t.request('GET', '/api/v1/identity/contact-points', { token });
    expect(points.body.contact_points.map((point: { value: string }) => point.value)).toEqual(['truth@example.com']);
  });
});
