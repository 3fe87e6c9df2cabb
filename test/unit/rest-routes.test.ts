import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';
import { restRoutes } from '../../src/facade-rest/routes/index.js';

describe('REST routes: each declared once, its contract beside what it runs', () => {
  it('make the served contract, one operation per route', () => {
    const routes = restRoutes();
    const operationIds = Object.values(buildOpenApiDocument(routes).paths).flatMap((item) => Object.values(item).map((operation) => (operation as { operationId: string }).operationId));
    expect(operationIds.sort()).toEqual(routes.map(({ spec }) => spec.id).sort());
  });

  it('refuse an operationId declared twice', () => {
    const [health, ready] = restRoutes();
    expect(() => buildOpenApiDocument([health!, { ...ready!, spec: { ...ready!.spec, id: health!.spec.id } }])).toThrow('OpenAPI: duplicate operationId getHealth');
  });

  it('refuse a method on a path declared twice', () => {
    const [health, ready] = restRoutes();
    expect(() => buildOpenApiDocument([health!, { ...ready!, path: health!.path }])).toThrow('OpenAPI: duplicate route GET /health');
  });
});
