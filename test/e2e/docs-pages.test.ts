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

  it('serves /api/docs with scripts from its own origin only, calls to its own origin only, and a webhook example production accepts', async () => {
    const response = await fetch(`${on.url}/api/docs`, { headers: NAVIGATION });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const policy = directives(response);
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('script-src')).toBe("'self'");
    // The console's calls: this origin only (no proxy, no other server).
    expect(policy.get('connect-src')).toBe("'self'");
    expect(policy.get('style-src')).toBe("'self' 'unsafe-inline'");
    expect(policy.get('font-src')).toBe("'self' data:");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(await response.text()).toContain('<div id="api-reference">');

    // The samples a reader copies: a webhook URL that production's checks accept (https), not a generated http://example.com.
    const contract = (await (await fetch(`${on.url}/api/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, { examples?: string[] }> }> } };
    for (const name of ['CreateWebhookRequest', 'UpdateWebhookRequest']) {
      const examples = contract.components.schemas[name]?.properties.url?.examples;
      expect(examples).toEqual([expect.stringMatching(/^https:\/\//)]);
    }
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

  it('answers a browser opening /graphql with a page saying the explorer is off and which setting turns it on, when introspection is off', async () => {
    const response = await fetch(`${off.url}/graphql`, { headers: NAVIGATION });
    const body = await response.text();
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(body).toContain('The GraphQL explorer is off in this deployment');
    expect(body).toContain('GRAPHQL_INTROSPECTION=true');
    expect(body).not.toContain('<div id="graphiql">');
    // A page of text under the UI's policy: no script at all.
    const policy = directives(response);
    expect(policy.get('script-src')).toBe("'self'");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(body).not.toContain('<script');

    // Any other client still gets GraphQL's own answer, and the API itself still answers.
    const json = await fetch(`${off.url}/graphql`, { headers: { accept: 'application/json' } });
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(await json.json()).toMatchObject({ errors: [{ message: expect.any(String) }] });
    expect((await off.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });
});
