import { startTestApp, type TestApp } from '../support/harness.js';

/** What a browser's address bar sends. */
const NAVIGATION = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

function directives(response: Response): Map<string, string> {
  const policy = response.headers.get('content-security-policy') ?? '';
  return new Map(policy.split(';').map((part) => part.trim().split(/\s+(.*)/s).slice(0, 2) as [string, string]));
}

describe('Documentation pages over HTTP: their policies, and no GraphQL explorer without introspection', () => {
  let on: TestApp;
  let off: TestApp;

  beforeAll(async () => {
    [on, off] = await Promise.all([startTestApp(), startTestApp({ GRAPHQL_INTROSPECTION: 'false' })]);
  });
  afterAll(async () => {
    await Promise.all([on?.stop(), off?.stop()]);
  });

  it('serves /api/docs with scripts from its own origin only and a style nonce new on every request', async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 2; i += 1) {
      const response = await fetch(`${on.url}/api/docs`, { headers: NAVIGATION });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const policy = directives(response);
      expect(policy.get('default-src')).toBe("'none'");
      expect(policy.get('script-src')).toBe("'self'");
      expect(policy.get('connect-src')).toBe("'self'");
      const nonce = /^'self' 'nonce-([A-Za-z0-9+/=]{22,})'$/.exec(policy.get('style-src') ?? '')?.[1];
      expect(nonce).toBeDefined();
      // styled-components (in Redoc) reads the page's csp-nonce meta: it must carry the header's nonce.
      expect(await response.text()).toContain(`<meta property="csp-nonce" nonce="${nonce}"`);
      nonces.add(nonce!);
    }
    expect(nonces.size).toBe(2);
  });

  it('serves the explorer to a browser opening /graphql, and leaves every other request to GraphQL', async () => {
    const page = await fetch(`${on.url}/graphql`, { headers: NAVIGATION });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<div id="graphiql">');
    const policy = directives(page);
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('worker-src')).toBe("'self'");
    expect(policy.get('connect-src')).toMatch(/^'self' ws:\/\/127\.0\.0\.1:\d+ wss:\/\/127\.0\.0\.1:\d+$/);
    expect(policy.get('frame-ancestors')).toBe("'none'");

    // A client that asks for JSON, or sends a query, gets GraphQL, never the page.
    const json = await fetch(`${on.url}/graphql`, { headers: { accept: 'application/json' } });
    expect(json.headers.get('content-type')).toContain('application/json');
    const query = await fetch(`${on.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { ...NAVIGATION, 'apollo-require-preflight': 'true' } });
    expect(query.headers.get('content-type')).not.toContain('text/html');
    expect((await on.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('serves no explorer when introspection is off: a browser opening /graphql gets the GraphQL error, as any client does', async () => {
    const response = await fetch(`${off.url}/graphql`, { headers: NAVIGATION });
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(body).not.toContain('<html');
    expect(JSON.parse(body)).toMatchObject({ errors: [{ message: expect.any(String) }] });
    // The API itself still answers.
    expect((await off.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });
});
