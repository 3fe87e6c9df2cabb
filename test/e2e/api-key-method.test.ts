import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

describe('The api_key signature method (machine contract)', () => {
  let t: TestApp;
  let bearer: string;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp();
    bearer = await t.signIn('agent-owner@example.com');
    key = (await t.request('POST', '/api/v1/api-keys', { token: bearer, body: { scopes: ['create', 'retrieve', 'verify'] } })).body.key;
  });
  afterAll(async () => {
    await t.stop();
  });

  const notarization = async () =>
    (await t.request('POST', '/api/v1/agreements', { apiKey: key, body: agreementBody({ type: 'notarization', parties: [], title: 'Build artifact digest' }) }))
      .body as { id: string; agr_reference: string };

  it('lets an API-key caller commit to a notarization version by echoing the confirmation, then finalize', async () => {
    const record = await notarization();
    const base = `/api/v1/notarizations/${record.agr_reference}/signature-execution`;
    expect((await t.request('POST', base, { apiKey: key })).status).toBe(200);
    const started = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution/methods/api_key/start`, { apiKey: key, body: {} });
    expect(started.status).toBe(200);
    const step = started.body.methods.find((m: { method_type: string }) => m.method_type === 'api_key').step;
    expect(step.challenge).toContain(`${record.agr_reference} v1 sha256:`);

    const wrong = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution/methods/api_key/submit`, {
      apiKey: key,
      body: { confirmation: `${step.challenge}x` },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail[0]).toMatchObject({ loc: ['body', 'confirmation'], type: 'confirmation_mismatch' });

    const satisfied = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution/methods/api_key/submit`, {
      apiKey: key,
      body: { confirmation: step.challenge },
    });
    expect(satisfied.body).toMatchObject({ can_finalize: true, satisfied_method_count: 1 });
    const finalized = await t.request('POST', `${base}/finalize`, { apiKey: key, body: {} });
    expect(finalized.status).toBe(200);
    expect(finalized.body.initiator_signature.status).toBe('finalized');
  });

  it('is refused to bearer sessions and on records other than notarizations', async () => {
    const record = await notarization();
    await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution`, { token: bearer });
    const byBearer = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution/methods/api_key/start`, { token: bearer, body: {} });
    expect(byBearer.status).toBe(422);
    expect(byBearer.body.detail[0]).toMatchObject({ loc: ['path', 'method_type'], type: 'method_not_applicable' });

    const agreement = (await t.request('POST', '/api/v1/agreements', { apiKey: key, body: agreementBody() })).body;
    await t.request('POST', `/api/v1/agreements/${agreement.id}/signature-execution`, { apiKey: key });
    const onAgreement = await t.request('POST', `/api/v1/agreements/${agreement.id}/signature-execution/methods/api_key/start`, { apiKey: key, body: {} });
    expect(onAgreement.status).toBe(422);
    expect((await t.request('GET', `/api/v1/notarizations/${agreement.id}/signature-execution`, { apiKey: key })).status).toBe(404);
    expect((await t.request('GET', `/api/v1/notarizations/${agreement.id}`, { apiKey: key })).status).toBe(404);
    const read = await t.request('GET', `/api/v1/notarizations/${record.agr_reference}`, { apiKey: key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ type: 'notarization', notarization: { content_type: 'text', hash_algorithm: 'sha256', label: 'Build artifact digest' } });
  });

  it('never lets authentication alone finalize: a bearer token or an API key without methods gets 409', async () => {
    const agreement = (await t.request('POST', '/api/v1/agreements', { token: bearer, body: agreementBody() })).body;
    await t.request('POST', `/api/v1/agreements/${agreement.id}/signature-execution`, { token: bearer });
    for (const credentials of [{ token: bearer }, { apiKey: key }]) {
      const finalize = await t.request('POST', `/api/v1/agreements/${agreement.id}/signature-execution/finalize`, { ...credentials, body: {} });
      expect(finalize).toMatchObject({ status: 409, body: { error_code: 'signature_incomplete' } });
    }
    const record = await t.request('GET', `/api/v1/agreements/${agreement.id}`, { token: bearer });
    expect(record.body.initiator_signature).toMatchObject({ status: 'in_progress', can_finalize: false });
  });

  it('answers a change with the record even when the key lacks the retrieve scope', async () => {
    const record = await notarization();
    const verifyOnly = (await t.request('POST', '/api/v1/api-keys', { token: bearer, body: { scopes: ['verify'] } })).body.key;
    const base = `/api/v1/notarizations/${record.id}/signature-execution`;
    expect((await t.request('POST', base, { apiKey: verifyOnly })).status).toBe(200);
    const started = await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution/methods/api_key/start`, { apiKey: verifyOnly, body: {} });
    const confirmation = started.body.methods.find((m: { method_type: string }) => m.method_type === 'api_key').step.challenge;
    await t.request('POST', `/api/v1/agreements/${record.id}/signature-execution/methods/api_key/submit`, { apiKey: verifyOnly, body: { confirmation } });
    const finalized = await t.request('POST', `${base}/finalize`, { apiKey: verifyOnly });
    expect(finalized.status).toBe(200);
    expect(finalized.body).toMatchObject({ id: record.id, initiator_signature: { status: 'finalized' } });
    expect((await t.request('GET', `/api/v1/agreements/${record.id}`, { apiKey: verifyOnly })).status).toBe(403);
  });
});
