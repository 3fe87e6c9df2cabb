import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import {
  buildSchema,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { OPERATION_ACCESS, type OperationAccess } from '../../src/domain/identity/operation-access.js';
import { API_KEY_SCOPES, type Principal } from '../../src/domain/identity/principal.js';
import { GraphOperationError } from '../../src/graph/executor.js';
import { catalogEntries } from '../../src/graph/catalog/index.js';
import { printSchemaFile } from '../../src/graph/print.js';
import { startTestApp, type TestApp } from '../support/harness.js';

/** A value GraphQL accepts for a type: enough to reach the resolver, so the access check is what answers. */
function sample(type: GraphQLInputType): unknown {
  if (!isNonNullType(type)) return null;
  const inner = getNullableType(type);
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  if (isInputObjectType(inner)) {
    return Object.fromEntries(Object.values(inner.getFields()).filter((field) => isNonNullType(field.type)).map((field) => [field.name, sample(field.type)]));
  }
  if (isScalarType(inner)) {
    switch (inner.name) {
      case 'Int':
      case 'SafeInt':
        return 1;
      case 'Boolean':
        return false;
      case 'DateTime':
        return new Date().toISOString();
      case 'JSON':
      case 'JSONObject':
        return {};
      default:
        return randomUUID();
    }
  }
  return null;
}

function variablesOf(schema: GraphQLSchema, document: { definitions: readonly { kind: string }[] }): Record<string, unknown> {
  const operation = document.definitions.find((node) => node.kind === (Kind.OPERATION_DEFINITION as string)) as OperationDefinitionNode;
  return Object.fromEntries(
    (operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, sample(typeFromAST(schema, definition.type as never) as GraphQLInputType)]),
  );
}

const ACCESS_CODES = ['unauthenticated', 'missing_scope', 'bearer_required'];

/**
 * The access declaration drives a table: every catalog operation is run in-process (as REST and MCP
 * run them) by every kind of caller, and the outcome is exactly what the declaration says. An allowed
 * call may still fail for other reasons (the sample input names no real record): only the access
 * refusals count here.
 */
describe('Access from the declaration, for every operation and every kind of caller', () => {
  let t: TestApp;
  let schema: GraphQLSchema;
  let identityId: string;

  beforeAll(async () => {
    t = await startTestApp();
    schema = buildSchema(await printSchemaFile());
    await t.signIn('access-table@example.com');
    const rows = await t.app.orm.em.fork().execute<{ identity_id: string }[]>(`select identity_id from contact_points where value = 'access-table@example.com'`);
    identityId = rows[0]!.identity_id;
  });
  afterAll(async () => {
    await t.stop();
  });

  type Caller = { name: string; principal: Principal | null };
  const callers = (): Caller[] => [
    { name: 'anonymous', principal: null },
    { name: 'session', principal: { kind: 'session', identityId, scopes: API_KEY_SCOPES, tokenId: randomUUID(), contactPointId: randomUUID() } },
    ...API_KEY_SCOPES.map((scope): Caller => ({ name: `api_key[${scope}]`, principal: { kind: 'api_key', identityId, scopes: [scope], apiKeyId: randomUUID() } })),
    { name: 'oauth[retrieve verify]', principal: { kind: 'oauth', identityId, scopes: ['retrieve', 'verify'], grantId: randomUUID(), clientId: 'client', offlineAccess: false } },
    { name: 'mcp_session[retrieve]', principal: { kind: 'mcp_session', identityId, scopes: ['retrieve'], mcpSessionId: randomUUID(), grantId: randomUUID(), sessionBound: true } },
  ];

  /** What the declaration says this caller gets: allowed, or the refusal's code. */
  function expected(access: OperationAccess, principal: Principal | null): string {
    if (access === 'public') return 'allowed';
    if (!principal) return 'unauthenticated';
    if (access === 'session') return principal.kind === 'session' ? 'allowed' : 'bearer_required';
    return principal.scopes.includes(access) ? 'allowed' : 'missing_scope';
  }

  it('runs every operation of the catalog as each caller, with the outcome the declaration gives', async () => {
    const table: string[] = [];
    const wrong: string[] = [];
    for (const entry of catalogEntries()) {
      const access = OPERATION_ACCESS[entry.name];
      for (const caller of callers()) {
        const graph = t.app.services.graph.bind({ principal: caller.principal, via: 'graphql', requestId: randomUUID() });
        let outcome = 'allowed';
        try {
          await graph(entry.document, variablesOf(schema, entry.document));
        } catch (error) {
          if (!(error instanceof GraphOperationError)) throw error;
          if (ACCESS_CODES.includes(error.code)) outcome = error.code;
        }
        const want = expected(access, caller.principal);
        table.push(`${entry.name} ${caller.name}: ${outcome}`);
        if (outcome !== want) wrong.push(`${entry.name} as ${caller.name}: ${outcome}, declared ${want}`);
      }
    }
    expect(wrong).toEqual([]);
    // Every operation, every caller: nothing skipped, and every kind of answer seen.
    expect(table).toHaveLength(catalogEntries().length * callers().length);
    for (const outcome of ['allowed', ...ACCESS_CODES]) expect(table.filter((line) => line.endsWith(`: ${outcome}`)).length).toBeGreaterThan(10);
    expect(table).toContain('records.createAgreement api_key[retrieve]: missing_scope');
    expect(table).toContain('identity.createApiKey oauth[retrieve verify]: bearer_required');
    expect(table).toContain('ceremony.finalize mcp_session[retrieve]: missing_scope');
  }, 120_000);
});
