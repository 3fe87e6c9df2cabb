import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../support/harness.js';

describe('GraphQL API', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('signs in with requestOtp and verifyOtp', async () => {
    const before = t.smtp.messages.length;
    const requested = await t.graphql<{ requestOtp: { verificationEventId: string } }>(
      'mutation($input: RequestOtpInput!) { requestOtp(input: $input) { verificationEventId purpose expiresAt } }',
      { input: { email: 'gql@example.com', purpose: 'authenticate' } },
    );
    expect(requested.body.errors).toBeUndefined();
    const code = await t.smtp.codeFor('gql@example.com', before);
    const verified = await t.graphql<{ verifyOtp: { accessToken: string } }>(
      'mutation($input: VerifyOtpInput!) { verifyOtp(input: $input) { verified accessToken tokenType expiresIn } }',
      { input: { verificationEventId: requested.body.data!.requestOtp.verificationEventId, code } },
    );
    expect(verified.body.data!.verifyOtp).toMatchObject({ verified: true, tokenType: 'bearer' });
    const status = await t.graphql('{ authenticationStatus { authenticated authMethod scopes } }', {}, { token: verified.body.data!.verifyOtp.accessToken });
    expect(status.body.data).toEqual({
      authenticationStatus: { authenticated: true, authMethod: 'bearer', scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] },
    });
  });

  it('reports domain errors with extensions.code', async () => {
    const wrong = await t.graphql(
      'mutation { verifyOtp(input: { verificationEventId: "00000000-0000-4000-8000-000000000000", code: "123456" }) { verified } }',
    );
    expect(wrong.body.errors![0].extensions).toMatchObject({ code: 'validation_error', issues: [expect.objectContaining({ type: 'otp_invalid' })] });
    const anonymous = await t.graphql('{ myRecords { total } }');
    expect(anonymous.body.errors![0].extensions.code).toBe('unauthenticated');
    const badToken = await t.graphql('{ authenticationStatus { authenticated } }', {}, { token: 'rss_at_nope' });
    expect(badToken.status).toBe(401);
    expect(badToken.body.errors![0].extensions.code).toBe('unauthenticated');
    const syntax = await t.graphql('{ myRecords { ');
    expect(syntax.status).toBe(400);
  });

  it('answers variables that do not coerce as Apollo does (400, validation_error, no data), introspection and __typename too', async () => {
    const token = await t.signIn('gql-variables@example.com');
    const wrongType = await t.graphql('query($id: String!) { record(id: $id) { id } }', { id: { not: 'an id' } }, { token });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.data).toBeUndefined();
    expect(wrongType.body.errors![0]).toMatchObject({ extensions: { code: 'validation_error' }, locations: [{ line: 1, column: 7 }] });
    expect(wrongType.body.errors![0].message).toMatch(/^Variable "\$id" got invalid value/);
    const missing = await t.graphql('query($id: String!) { record(id: $id) { id } }', {}, { token });
    expect(missing.status).toBe(400);
    expect(missing.body.errors![0]).toMatchObject({ extensions: { code: 'validation_error' } });
    const typename = await t.graphql<{ __typename: string; authenticationStatus: { __typename: string } }>('{ __typename authenticationStatus { __typename } }', {}, { token });
    expect(typename.body.data).toEqual({ __typename: 'Query', authenticationStatus: { __typename: 'AuthenticationStatus' } });
    const introspection = await t.graphql<{ __schema: { queryType: { name: string } }; __type: { name: string } }>('{ __schema { queryType { name } } __type(name: "Query") { name } }');
    expect(introspection.body.data).toEqual({ __schema: { queryType: { name: 'Query' } }, __type: { name: 'Query' } });
  });

  it('answers a document the same the first time (graphql-js) and every time after (compiled): data, a domain error, variables that do not coerce', async () => {
    const token = await t.signIn('gql-twice@example.com');
    const created = await t.request('POST', '/api/v1/agreements', {
      token,
      body: { title: 'Twice', body: 'Ann lends Bob her ladder for the weekend, to be returned by Monday evening.', on_chain_full_text: false, on_chain_include_verified_parties: false, parties: [{ display_name: 'Bob', contact_point_value: 'bob-twice@example.com' }] },
    });
    const read = 'query ReadTwice($id: String!) { record(id: $id) { id status title parties { role displayName } } }';
    const answers = [];
    for (const variables of [{ id: created.body.id }, { id: '00000000-0000-4000-8000-000000000000' }, { id: 7 }]) {
      const runs = [];
      for (let run = 0; run < 3; run += 1) {
        const answer = await t.graphql(read, variables, { token });
        runs.push({ status: answer.status, body: answer.body });
      }
      expect(runs[1]).toEqual(runs[0]);
      expect(runs[2]).toEqual(runs[0]);
      answers.push(runs[0]!);
    }
    expect(answers[0]).toMatchObject({ status: 200, body: { data: { record: { id: created.body.id, status: 'draft', title: 'Twice' } } } });
    expect(answers[1]!.body.errors![0].extensions).toMatchObject({ code: 'not_found' });
    expect(answers[2]).toMatchObject({ status: 400, body: { errors: [{ extensions: { code: 'validation_error' } }] } });
  });

  it('answers a subscription sent over HTTP with 400 naming graphql-ws, not an internal error', async () => {
    const token = await t.signIn('http-subscriber@example.com');
    const answer = await t.graphql('subscription { recordActivity { __typename } }', {}, { token });
    expect(answer.status).toBe(400);
    expect(answer.body.errors![0]).toMatchObject({ extensions: { code: 'validation_error' } });
    expect(answer.body.errors![0].message).toMatch(/graphql-ws/);
    expect(answer.body.data).toBeUndefined();
  });

  it('manages API keys and refuses them on bearer-only fields', async () => {
    const token = await t.signIn('gql-keys@example.com');
    const created = await t.graphql<{ createApiKey: { key: string; apiKey: { id: string } } }>(
      'mutation { createApiKey(input: { scopes: [retrieve], name: "gql" }) { key apiKey { id keyPrefix scopes } } }',
      {},
      { token },
    );
    const { key, apiKey } = created.body.data!.createApiKey;
    const viaKey = await t.graphql('{ authenticationStatus { authMethod scopes } }', {}, { apiKey: key });
    expect(viaKey.body.data).toEqual({ authenticationStatus: { authMethod: 'api_key', scopes: ['retrieve'] } });
    const refused = await t.graphql('{ apiKeys { id } }', {}, { apiKey: key });
    expect(refused.body.errors![0].extensions.code).toBe('bearer_required');
    const listed = await t.graphql<{ apiKeys: { id: string }[] }>('{ apiKeys { id } }', {}, { token });
    expect(listed.body.data!.apiKeys.map((k) => k.id)).toContain(apiKey.id);
    const revoked = await t.graphql('mutation($id: ID!) { revokeApiKey(id: $id) }', { id: apiKey.id }, { token });
    expect(revoked.body.data).toEqual({ revokeApiKey: true });
    expect((await t.graphql('{ authenticationStatus { authMethod } }', {}, { apiKey: key })).status).toBe(401);
  });

  it('serves graphql-ws on the same path, with credentials in the connection params', async () => {
    const token = await t.signIn('ws@example.com');
    const client = createClient({
      url: t.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    try {
      const result = await new Promise<unknown>((resolve, reject) => {
        client.subscribe({ query: '{ authenticationStatus { authenticated authMethod } }' }, { next: resolve, error: reject, complete: () => undefined });
      });
      expect(result).toEqual({ data: { authenticationStatus: { authenticated: true, authMethod: 'bearer' } } });
    } finally {
      await client.dispose();
    }
  });

  it('closes a graphql-ws connection that presents invalid credentials', async () => {
    const client = createClient({
      url: t.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: 'Bearer rss_at_not-a-token' },
      retryAttempts: 0,
    });
    try {
      const outcome = await new Promise<unknown>((resolve) => {
        client.subscribe({ query: '{ authenticationStatus { authenticated } }' }, { next: resolve, error: resolve, complete: () => undefined });
      });
      expect(outcome).toMatchObject({ code: 4403 });
    } finally {
      await client.dispose();
    }
  });
});
