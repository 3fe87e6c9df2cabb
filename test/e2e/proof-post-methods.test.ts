import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { startProviders, type ProviderKind, type ProviderServer } from '../support/provider-servers.js';

// NETWORK RULE: everything here talks to 127.0.0.1 only. Foreign and private hosts below are refused
// by the service before any DNS query or connection.

type Step = { prompt: string; proof_title: string; proof_text: string; url: string; challenge: null };

const CASES = [
  { method: 'codehost_gist', kind: 'codehost', author: 'Alice-Dev', contactType: 'codehost', noun: 'gist' },
  { method: 'microblog_post', kind: 'microblog', author: 'Alice_Dev', contactType: 'microblog', noun: 'post' },
  { method: 'forum_post', kind: 'forum', author: 'alice.dev', contactType: 'forum', noun: 'post' },
] as const;

const path = (id: string, rest = '') => `/api/v1/agreements/${id}/signature-execution${rest}`;

/** Changes one character of the nonce at the very end of the proof line. */
const alterOneCharacter = (text: string) => text.replace(/.$/, (c) => (c === 'x' ? 'y' : 'x'));

describe('Public proof-post signature methods (REST)', () => {
  let t: TestApp;
  let alice: string;
  let providers: Record<ProviderKind, ProviderServer>;

  beforeAll(async () => {
    providers = await startProviders();
    t = await startTestApp({
      PROOF_FETCH_ALLOW_LOOPBACK: 'true',
      CODEHOST_API_BASE: providers.codehost.base,
      MICROBLOG_API_BASE: providers.microblog.base,
      FORUM_API_BASE: providers.forum.base,
      OTP_REQUESTS_PER_WINDOW: '50',
    });
    alice = await t.signIn('alice@example.com');
  });
  afterAll(async () => {
    await t.stop();
    await Promise.all(Object.values(providers).map((p) => p.stop()));
  });

  async function draft(overrides: Record<string, unknown> = {}) {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody(overrides) });
    expect(created.status).toBe(201);
    const record = created.body as { id: string; agr_reference: string };
    const execution = await t.request('POST', path(record.id), { token: alice });
    expect(execution.status).toBe(200);
    return { ...record, partyId: execution.body.party_id as string };
  }

  async function start(recordId: string, method: string, body: Record<string, unknown> = {}): Promise<Step> {
    const started = await t.request('POST', path(recordId, `/methods/${method}/start`), { token: alice, body });
    expect(started.status).toBe(200);
    const entry = started.body.methods.find((m: { method_type: string }) => m.method_type === method);
    expect(entry.status).toBe('pending');
    return entry.step as Step;
  }

  const submit = (recordId: string, method: string, url: string) =>
    t.request('POST', path(recordId, `/methods/${method}/submit`), { token: alice, body: { url } });
  const methodOf = (body: { methods: { method_type: string }[] }, method: string) => body.methods.find((m) => m.method_type === method);

  describe.each(CASES)('$method', ({ method, kind, author, contactType, noun }) => {
    it('gives a proof bound to the record version, participant and a nonce, then is satisfied by the published post', async () => {
      const record = await draft();
      const step = await start(record.id, method, { handle: `@${author}` });
      expect(step.proof_title).toBe(`Signature proof for ${record.agr_reference} v1`);
      const proofLine = step.proof_text.split('\n').at(-1)!;
      expect(proofLine).toMatch(new RegExp(`^rss-proof: ${record.agr_reference} v1 ${record.partyId} [A-Za-z0-9_-]{16}$`));
      expect(step.prompt).toContain(`public ${noun}`);
      expect(step.url).toBe(`${providers[kind].base}/`);

      const url = providers[kind].publish(author, `${step.proof_title}\n\n${step.proof_text}\n`);
      const satisfied = await submit(record.id, method, url);
      expect(satisfied.status).toBe(200);
      expect(satisfied.body).toMatchObject({ satisfied_method_count: 1, can_finalize: true });
      expect(methodOf(satisfied.body, method)).toMatchObject({ status: 'satisfied', step: null, satisfied_at: expect.any(String) });

      const points = await t.request('GET', '/api/v1/identity/contact-points', { token: alice });
      expect(points.body.contact_points).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: contactType, value: author.toLowerCase(), last_verified_at: expect.any(String) })]),
      );
    });

    it('refuses a post without the proof text (422) and keeps the method pending', async () => {
      const record = await draft();
      await start(record.id, method);
      const url = providers[kind].publish(author, 'Just a post about gardening.');
      const refused = await submit(record.id, method, url);
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'proof_mismatch' });
      const execution = await t.request('GET', path(record.id), { token: alice });
      expect(methodOf(execution.body, method)).toMatchObject({ status: 'pending', step: { proof_text: expect.any(String) } });
    });

    it('refuses a proof altered by one character', async () => {
      const record = await draft();
      const step = await start(record.id, method);
      const refused = await submit(record.id, method, providers[kind].publish(author, alterOneCharacter(step.proof_text)));
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'proof_mismatch', msg: expect.stringContaining('differs') });
    });

    it('refuses a post by another handle than the one announced at start', async () => {
      const record = await draft();
      const step = await start(record.id, method, { handle: 'someone-else' });
      const refused = await submit(record.id, method, providers[kind].publish(author, step.proof_text));
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'handle_mismatch' });
    });

    it('refuses a URL on a foreign host before fetching anything', async () => {
      const record = await draft();
      await start(record.id, method);
      const seen = providers[kind].requests.length;
      const sameShapeElsewhere = providers[kind].reserve(author).url.replace(providers[kind].base, 'https://evil.example');
      const refused = await submit(record.id, method, sameShapeElsewhere);
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'foreign_host' });
      // Another provider's host is foreign too.
      const other = CASES.find((c) => c.kind !== kind)!;
      const crossed = await submit(record.id, method, providers[other.kind].publish(author, 'x'));
      expect(crossed.body.detail[0]).toMatchObject({ type: 'foreign_host' });
      expect(providers[kind].requests.length).toBe(seen);
    });

    it('stays pending while the post is not visible, and refresh satisfies it once published', async () => {
      const record = await draft();
      const step = await start(record.id, method);
      const early = await t.request('POST', path(record.id, `/methods/${method}/refresh`), { token: alice, body: {} });
      expect(methodOf(early.body, method)).toMatchObject({ status: 'pending', step: { url: `${providers[kind].base}/` } });

      const { id, url } = providers[kind].reserve(author);
      const pending = await submit(record.id, method, url);
      expect(pending.status).toBe(200);
      expect(methodOf(pending.body, method)).toMatchObject({ status: 'pending', step: { url, prompt: expect.stringContaining('not visible') } });
      const stillPending = await t.request('POST', path(record.id, `/methods/${method}/refresh`), { token: alice, body: {} });
      expect(methodOf(stillPending.body, method)).toMatchObject({ status: 'pending' });

      providers[kind].publishAt(id, author, step.proof_text);
      const refreshed = await t.request('POST', path(record.id, `/methods/${method}/refresh`), { token: alice, body: {} });
      expect(refreshed.status).toBe(200);
      expect(methodOf(refreshed.body, method)).toMatchObject({ status: 'satisfied' });
    });

    it('follows a redirect on the provider host but refuses one to a foreign host', async () => {
      const record = await draft();
      const step = await start(record.id, method);
      const provider = providers[kind];
      const away = provider.reserve(author);
      provider.answer(away.id, { status: 302, headers: { location: 'https://evil.example/steal' } });
      const refused = await submit(record.id, method, away.url);
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'foreign_host' });

      const target = provider.reserve(author);
      provider.publishAt(target.id, author, step.proof_text);
      const moved = provider.reserve(author);
      provider.answer(moved.id, { status: 301, headers: { location: provider.apiUrl(target.id) } });
      const satisfied = await submit(record.id, method, moved.url);
      expect(methodOf(satisfied.body, method)).toMatchObject({ status: 'satisfied' });
    });

    it('answers 409 when the provider fails, and 429 with Retry-After when it rate-limits', async () => {
      const record = await draft();
      await start(record.id, method);
      const down = providers[kind].reserve(author);
      providers[kind].answer(down.id, { status: 503 });
      expect(await submit(record.id, method, down.url)).toMatchObject({ status: 409, body: { error_code: 'conflict' } });
      const limited = providers[kind].reserve(author);
      providers[kind].answer(limited.id, { status: 429, headers: { 'retry-after': '42' } });
      const answer = await submit(record.id, method, limited.url);
      expect(answer).toMatchObject({ status: 429, body: { error_code: 'rate_limited', retry_after_seconds: 42 } });
      expect(answer.headers.get('retry-after')).toBe('42');
    });
  });

  it('accepts a forum topic link as well as a post link', async () => {
    const record = await draft();
    const step = await start(record.id, 'forum_post');
    const { id } = providers.forum.reserve('alice.dev');
    providers.forum.publishAt(id, 'alice.dev', step.proof_text);
    const satisfied = await submit(record.id, 'forum_post', `${providers.forum.base}/t/signing-my-garden-agreement/${id}/1`);
    expect(methodOf(satisfied.body, 'forum_post')).toMatchObject({ status: 'satisfied' });
  });

  it('finalizes with email_otp and a proof post when two methods are required', async () => {
    const record = await draft({ required_signature_method_count: 2 });
    const before = t.smtp.messages.length;
    await start(record.id, 'email_otp');
    const mail = await t.smtp.waitFor('alice@example.com', (m) => t.smtp.messages.indexOf(m) >= before);
    const code = /code is (\d{6})/.exec(mail.text)![1]!;
    const one = await t.request('POST', path(record.id, '/methods/email_otp/submit'), { token: alice, body: { code } });
    expect(one.body).toMatchObject({ satisfied_method_count: 1, can_finalize: false });

    const step = await start(record.id, 'microblog_post');
    const two = await submit(record.id, 'microblog_post', providers.microblog.publish('Alice_Dev', step.proof_text));
    expect(two.body).toMatchObject({ satisfied_method_count: 2, can_finalize: true });

    const finalized = await t.request('POST', path(record.id, '/finalize'), { token: alice, body: {} });
    expect(finalized.status).toBe(200);
    expect(finalized.body.initiator_signature).toMatchObject({ status: 'finalized', confirmed_version: 1 });
  });
});

describe('Public proof-post SSRF guard (REST)', () => {
  let t: TestApp;
  let alice: string;

  beforeAll(async () => {
    // Provider bases on private addresses: the loopback test switch must not open any of them.
    t = await startTestApp({
      PROOF_FETCH_ALLOW_LOOPBACK: 'true',
      CODEHOST_API_BASE: 'http://10.0.0.1',
      MICROBLOG_API_BASE: 'http://[fd00::1]',
      FORUM_API_BASE: 'http://169.254.169.254',
      PROOF_FETCHES_PER_WINDOW: '3',
    });
    alice = await t.signIn('alice@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  async function startedDraft(method: string): Promise<string> {
    const created = await t.request('POST', '/api/v1/agreements', { token: alice, body: agreementBody() });
    await t.request('POST', path(created.body.id), { token: alice });
    expect((await t.request('POST', path(created.body.id, `/methods/${method}/start`), { token: alice, body: {} })).status).toBe(200);
    return created.body.id as string;
  }

  it.each([
    ['codehost_gist', 'http://10.0.0.1/alice/abc123'],
    ['microblog_post', 'http://[fd00::1]/@alice/123'],
    ['forum_post', 'http://169.254.169.254/p/123'],
  ])('refuses %s at a private address before connecting', async (method, url) => {
    const record = await startedDraft(method);
    const refused = await t.request('POST', path(record, `/methods/${method}/submit`), { token: alice, body: { url } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'private_address' });
  });

  it('rate-limits provider checks per participant with 429 and Retry-After', async () => {
    const record = await startedDraft('codehost_gist');
    const submit = () => t.request('POST', path(record, '/methods/codehost_gist/submit'), { token: alice, body: { url: 'http://10.0.0.1/alice/abc123' } });
    for (let i = 0; i < 3; i += 1) expect((await submit()).status).toBe(422);
    const limited = await submit();
    expect(limited).toMatchObject({ status: 429, body: { error_code: 'rate_limited', retry_after_seconds: expect.any(Number) } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
