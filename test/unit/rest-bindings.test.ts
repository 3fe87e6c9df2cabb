import { bindingProblems } from '../../src/facade-rest/bindings/check.js';
import { restBindings } from '../../src/facade-rest/bindings/index.js';
import { plannedRoutes } from '../../src/facade-rest/bindings/planned.js';
import { metaOperations } from '../../src/facade-rest/meta.js';
import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';

const bound = Object.keys({ ...restBindings, ...metaOperations({ readiness: async () => ({ ready: true, checks: {} }), mcpDiagnostics: async () => ({}) }) });

describe('REST bindings', () => {
  it('bind every operationId of the served contract exactly once, and nothing else', () => {
    expect(bindingProblems(buildOpenApiDocument(), { bound, planned: Object.keys(plannedRoutes) })).toEqual([]);
  });

  it('report an operationId without a binding', () => {
    const problems = bindingProblems(buildOpenApiDocument(), { bound: bound.filter((id) => id !== 'getAgreement'), planned: Object.keys(plannedRoutes) });
    expect(problems).toEqual(['getAgreement has no binding (bind it, or list it in bindings/planned.ts)']);
  });

  it('report a binding without an operation, and one bound twice', () => {
    const problems = bindingProblems(buildOpenApiDocument(), { bound: [...bound, 'getGhost'], planned: [...Object.keys(plannedRoutes), 'getAgreement'] });
    expect(problems).toEqual(['getGhost is bound but the contract has no such operation', 'getAgreement is bound twice']);
  });
});
