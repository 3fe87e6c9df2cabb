import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';
import { startTestApp, type TestApp } from '../support/harness.js';

type Parameter = { name: string; in: string; schema?: { format?: string; enum?: string[]; minLength?: number } };
type Route = { method: string; path: string; operationId: string; security: unknown[]; parameters: Parameter[] };

const document = buildOpenApiDocument();
const routes: Route[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => {
    const op = operation as { operationId: string; security?: unknown[]; parameters?: Parameter[] };
    return { method: method.toUpperCase(), path, operationId: op.operationId, security: op.security ?? [], parameters: op.parameters ?? [] };
  }),
);
const protectedRoutes = routes.filter((route) => route.security.length > 0);

/** A value each path parameter accepts. */
function goodValue(parameter: Parameter): string {
  if (parameter.schema?.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (parameter.schema?.enum) return parameter.schema.enum[0]!;
  if ((parameter.schema?.minLength ?? 0) > 1) return 'x'.repeat(parameter.schema!.minLength!);
  return 'AGR-AAAA-AAAA';
}

/** A value the contract refuses, for parameters whose schema says more than "a string". */
const isChecked = (parameter: Parameter) =>
  parameter.in === 'path' && (parameter.schema?.format === 'uuid' || parameter.schema?.enum !== undefined || (parameter.schema?.minLength ?? 0) > 1);

function fill(route: Route, bad?: string): string {
  return route.parameters
    .filter((parameter) => parameter.in === 'path')
    .reduce((path, parameter) => path.replace(`{${parameter.name}}`, parameter.name === bad ? 'abcde' : goodValue(parameter)), route.path);
}

const withBody = (method: string) => (method === 'POST' || method === 'PATCH' ? { body: {} } : {});

describe('Route access: authentication before anything else', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.signIn('routes@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  it('covers protected routes, planned ones included', () => {
    expect(protectedRoutes.length).toBeGreaterThan(40);
    expect(protectedRoutes.map((route) => route.operationId)).toContain('getAgreementDocument');
  });

  it.each(protectedRoutes.map((route) => [route.operationId, route] as const))('%s answers 401 to an anonymous caller', async (_id, route) => {
    const response = await t.request(route.method, fill(route), withBody(route.method));
    expect(response.status).toBe(401);
    expect(response.body.error_code).toBe('unauthenticated');
  });

  it.each(protectedRoutes.map((route) => [route.operationId, route] as const))('%s answers 401 to an invalid bearer token', async (_id, route) => {
    const response = await t.request(route.method, fill(route), { ...withBody(route.method), token: 'rss_at_not-a-token' });
    expect(response.status).toBe(401);
  });

  const checked = routes.flatMap((route) => route.parameters.filter(isChecked).map((parameter) => [`${route.operationId} ${parameter.name}`, route, parameter.name] as const));

  it.each(checked)('%s: a bad path parameter answers 422, never 501', async (_label, route, name) => {
    const response = await t.request(route.method, fill(route, name), { ...withBody(route.method), token });
    expect(response.status).toBe(422);
    expect(response.body.detail.some((item: { loc: string[] }) => item.loc[0] === 'path' && item.loc[1] === name)).toBe(true);
  });

  it('answers a 5-character share-card ticket with 422', async () => {
    const response = await t.request('GET', '/api/v1/artifacts/share-card/abcde');
    expect(response.status).toBe(422);
  });

  it('answers an artifact route (once planned, now bound) only after authentication: 401, then its own 404', async () => {
    expect((await t.request('GET', '/api/v1/agreements/AGR-AAAA-AAAA/document')).status).toBe(401);
    const response = await t.request('GET', '/api/v1/agreements/AGR-AAAA-AAAA/document', { token });
    expect(response.status).toBe(404);
    expect(response.body.error_code).toBe('not_found');
  });

  it('answers an unknown route with 404', async () => {
    const response = await fetch(`${t.url}/api/v1/no-such-thing`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error_code: string }).error_code).toBe('not_found');
  });

  it('refuses an API key on a bearer-only route with 403 bearer_required', async () => {
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { name: 'k', scopes: ['retrieve'] } });
    const response = await t.request('GET', '/api/v1/api-keys', { apiKey: created.body.key });
    expect(response.status).toBe(403);
    expect(response.body.error_code).toBe('bearer_required');
  });
});
