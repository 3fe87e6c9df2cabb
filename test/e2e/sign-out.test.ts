import { startTestApp, type TestApp } from '../support/harness.js';
import { startInstanceProcess, type InstanceProcess } from '../support/instance-process.js';

/**
 * Sign-out ends a session on the server, at once on every instance: the bearer token answers 401 on
 * another process that had just used it (and holds its principal for reuse), through REST and GraphQL;
 * "everywhere" ends every session of the person and leaves their API keys working.
 */
describe('Sign-out', () => {
  let a: TestApp;
  let c: InstanceProcess;
  const long = { PRINCIPAL_CACHE_SECONDS: '300' };

  beforeAll(async () => {
    a = await startTestApp(long);
    c = await startInstanceProcess(a.databaseUrl, a.config.smtpUrl!, { ...long, LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    c.child.kill('SIGTERM');
    await new Promise((resolve) => (c.child.exitCode !== null ? resolve(null) : c.child.once('exit', resolve)));
    await a.stop();
  });

  const listOn = async (url: string, token: string) => (await fetch(`${url}/api/v1/identity/agreements`, { headers: { authorization: `Bearer ${token}` } })).status;
  const graphqlOn = async (url: string, token: string) => {
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ authenticationStatus { authenticated } }' }),
    });
    return (await response.json()) as { data?: { authenticationStatus: { authenticated: boolean } }; errors?: { extensions?: { code?: string } }[] };
  };

  it('REST: ends this session only, at once on another process that had just used it; a second sign-out is 401', async () => {
    const [token, other] = [await a.signIn('leaving@example.com'), await a.signIn('leaving@example.com')];
    expect(await listOn(c.url, token)).toBe(200);
    const signedOut = await a.request('POST', '/api/v1/identity/sign-out', { token });
    expect(signedOut).toMatchObject({ status: 200, body: { sessions_ended: 1 } });
    expect(await listOn(c.url, token)).toBe(401);
    expect(await listOn(a.url, token)).toBe(401);
    expect((await graphqlOn(c.url, token)).data?.authenticationStatus.authenticated ?? false).toBe(false);
    // The person's other session (another tab, another device) goes on.
    expect(await listOn(c.url, other)).toBe(200);
    expect((await a.request('POST', '/api/v1/identity/sign-out', { token })).status).toBe(401);
  });

  it('GraphQL signOut(everywhere: true): every session of the person ends, API keys keep working; an API key cannot sign out', async () => {
    const sessions = [await a.signIn('everywhere@example.com'), await a.signIn('everywhere@example.com'), await a.signIn('everywhere@example.com')];
    const bystander = await a.signIn('bystander@example.com');
    const key = (await a.request('POST', '/api/v1/api-keys', { token: sessions[0], body: { scopes: ['retrieve'] } })).body.key as string;
    for (const token of sessions) expect(await listOn(c.url, token)).toBe(200);

    const refused = await a.graphql('mutation { signOut { sessionsEnded } }', {}, { apiKey: key });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('bearer_required');

    const ended = await a.graphql<{ signOut: { sessionsEnded: number } }>('mutation { signOut(everywhere: true) { sessionsEnded } }', {}, { token: sessions[1] });
    expect(ended.body).toEqual({ data: { signOut: { sessionsEnded: 3 } } });
    for (const token of sessions) expect(await listOn(c.url, token)).toBe(401);
    expect(await listOn(c.url, bystander)).toBe(200);
    expect((await fetch(`${c.url}/api/v1/identity/agreements`, { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('REST without a session: 401; with everywhere not a boolean: 422 naming it, and the session stays', async () => {
    expect((await a.request('POST', '/api/v1/identity/sign-out')).status).toBe(401);
    const token = await a.signIn('bad-body@example.com');
    const bad = await a.request('POST', '/api/v1/identity/sign-out', { token, body: { everywhere: 'yes' } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('everywhere');
    expect(await listOn(a.url, token)).toBe(200);
  });
});
