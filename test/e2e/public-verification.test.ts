import { createHash } from 'node:crypto';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

const BODY = 'We agree to share the garden equally and to take turns watering it every week.';

describe('Public verification by reference (no credentials)', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100', METHOD_STARTS_PER_WINDOW: '100' });
    alice = await t.signIn('alice@example.com');
    bob = await t.signIn('bob@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  async function pending() {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody({ body: BODY }) });
    await signWithEmailOtp(t, alice, 'alice@example.com', created.body.id);
    await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token: alice });
    return created.body as { id: string; agr_reference: string; body_hash: string };
  }

  it('shows the public record without body or participants, and hides drafts', async () => {
    const record = await pending();
    const view = await t.request('GET', `/api/v1/public/agreements/${record.agr_reference}`);
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      agr_reference: record.agr_reference,
      type: 'agreement',
      status: 'pending_confirmation',
      sealed_at: null,
      expires_at: expect.any(String),
      party_count: 2,
      notarization: null,
      blockchain: null,
      identicon: null,
    });
    const draft = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    expect((await t.request('GET', `/api/v1/public/agreements/${draft.body.agr_reference}`)).status).toBe(404);
    const unknown = await t.request('GET', '/api/v1/public/verify/AGR-0000-0000');
    expect(unknown.body).toMatchObject({ record_found: false, verdict: 'not_found', verified: false });
  });

  it('is a certificate lookup without an artifact, and a match with one', async () => {
    const record = await pending();
    const lookup = await t.request('GET', `/api/v1/public/verify/${record.agr_reference}`);
    expect(lookup.body).toMatchObject({ record_found: true, record_match: null, verified: false, verdict: 'certificate', current_authority: record.agr_reference });

    const notYet = await t.request('POST', `/api/v1/public/verify/${record.agr_reference}`, { body: { text: `  ${BODY.replace(/ /g, '  ')}` } });
    expect(notYet.body).toMatchObject({ record_match: true, verified: false, verdict: 'matched_not_sealed', match_method: 'text' });

    await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    const verified = await t.request('POST', `/api/v1/public/verify/${record.agr_reference.toLowerCase()}`, { body: { body: BODY } });
    expect(verified.body).toMatchObject({ record_match: true, verified: true, verdict: 'verified', status: 'sealed', sealed_at: expect.any(String) });
    const byHash = await t.request('POST', `/api/v1/public/verify/${record.agr_reference}`, { body: { content_hash: record.body_hash } });
    expect(byHash.body).toMatchObject({ verdict: 'verified', match_method: 'content_hash' });
    const other = await t.request('POST', `/api/v1/public/verify/${record.agr_reference}`, { body: { text: 'We agree to something else entirely.' } });
    expect(other.body).toMatchObject({ record_match: false, verified: false, verdict: 'no_match', match_method: null });
  });

  it('names the current authority after an amendment seals', async () => {
    const record = await pending();
    await signWithEmailOtp(t, bob, 'bob@example.com', record.id);
    const amendment = await t.request('POST', `/api/v1/agreements/${record.id}/amend`, { token: alice, body: { body: `${BODY} Also the shed.` } });
    await signWithEmailOtp(t, alice, 'alice@example.com', amendment.body.id);
    await t.request('POST', `/api/v1/agreements/${amendment.body.id}/submit`, { token: alice });
    await signWithEmailOtp(t, bob, 'bob@example.com', amendment.body.id);
    const old = await t.request('POST', `/api/v1/public/verify/${record.agr_reference}`, { body: { text: BODY } });
    expect(old.body).toMatchObject({ verdict: 'matched_superseded', status: 'superseded', current_authority: amendment.body.agr_reference });
  });

  it('verifies a notarized file hash, and refuses ambiguous or malformed artifacts', async () => {
    const digest = createHash('sha256').update('release.tar.gz bytes').digest('hex');
    const key = (await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['create', 'verify'] } })).body.key;
    const notarized = await t.request('POST', '/api/v1/notarizations', {
      apiKey: key,
      body: { content_type: 'file', content_hash: digest, filename: 'release.tar.gz', signature_mode: 'auto_seal' },
    });
    const reference = notarized.body.record.agr_reference;
    const result = await t.request('POST', `/api/v1/public/verify/${reference}`, { body: { content_hash: `sha256:${digest}` } });
    expect(result.body).toMatchObject({ verdict: 'verified', match_method: 'content_hash' });
    const publicView = await t.request('GET', `/api/v1/public/agreements/${reference}`);
    expect(publicView.body.notarization).toMatchObject({ content_type: 'file', content_hash: `sha256:${digest}`, filename: 'release.tar.gz', text: null });

    const two = await t.request('POST', `/api/v1/public/verify/${reference}`, { body: { text: 'a b', content_hash: digest } });
    expect(two.status).toBe(422);
    // A notarization has no sealed PDF: a document hash never matches it; a malformed one is refused.
    const doc = await t.request('POST', `/api/v1/public/verify/${reference}`, { body: { document_hash: digest } });
    expect(doc.body).toMatchObject({ verdict: 'no_match', record_match: false });
    const bad = await t.request('POST', `/api/v1/public/verify/${reference}`, { body: { document_hash: 'abc' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'document_hash'], type: 'invalid_hash' });
  });

  it('is the same query in GraphQL, without credentials', async () => {
    const record = await pending();
    const result = await t.graphql('query($r: String!) { verifyRecord(reference: $r, artifact: { text: $t }) { verdict recordMatch } }'.replace('$t', JSON.stringify(BODY)), {
      r: record.agr_reference,
    });
    expect(result.body.data).toEqual({ verifyRecord: { verdict: 'matched_not_sealed', recordMatch: true } });
  });
});
