import 'reflect-metadata';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildSchema, Kind, type GraphQLField, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { OPERATION_ACCESS, type DomainOperation, type OperationAccess } from '../../src/domain/identity/operation-access.js';
import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';
import { restRoutes } from '../../src/facade-rest/routes/index.js';
import { catalogEntries } from '../../src/graph/catalog/index.js';
import { printSchemaFile } from '../../src/graph/print.js';

/** The root field an entry's document selects. */
function rootField(schema: GraphQLSchema, document: { definitions: readonly { kind: string }[] }): GraphQLField<unknown, unknown> {
  const definition = document.definitions.find((node) => node.kind === (Kind.OPERATION_DEFINITION as string)) as OperationDefinitionNode;
  const selection = definition.selectionSet.selections[0]!;
  if ((selection.kind as string) !== (Kind.FIELD as string) || !('name' in selection)) throw new Error('expected a field');
  const root = String(definition.operation) === 'query' ? schema.getQueryType() : schema.getMutationType();
  return root!.getFields()[selection.name.value]!;
}

/** What a GraphQL description says about access. */
function accessInDescription(description: string): OperationAccess {
  const scope = /\(scope ([a-z_]+)/.exec(description)?.[1];
  if (scope) return scope as OperationAccess;
  return description.includes('(bearer only') ? 'session' : 'public';
}

/** What an OpenAPI operation says about access. */
function accessInContract(operation: { security?: Record<string, unknown>[]; 'x-required-scopes'?: string[] }): OperationAccess | 'inconsistent' {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  const scopes = operation['x-required-scopes'];
  if (schemes.length === 0) return scopes ? 'inconsistent' : 'public';
  if (!schemes.includes('apiKeyAuth')) return scopes ? 'inconsistent' : 'session';
  return scopes?.length === 1 ? (scopes[0] as OperationAccess) : 'inconsistent';
}

describe('Operation access: declared once in the domain, the same in every transport', () => {
  let schema: GraphQLSchema;

  beforeAll(async () => {
    schema = buildSchema(await printSchemaFile());
  });

  it('names every catalog entry after a declared domain operation', () => {
    for (const entry of catalogEntries()) expect(Object.keys(OPERATION_ACCESS)).toContain(entry.name);
  });

  it.each(catalogEntries().map((entry) => [entry.name, entry] as const))(
    'GraphQL describes the access of %s as the domain declares it',
    (name, entry) => {
      const field = rootField(schema, entry.document);
      expect([field.name, accessInDescription(field.description ?? '')]).toEqual([field.name, OPERATION_ACCESS[name]]);
    },
  );

  const document = buildOpenApiDocument();
  /** The domain operation each route runs, from its binding (none for the meta routes). */
  const domainOperationOf = new Map(restRoutes().map(({ spec, runs }) => [spec.id, runs.operation?.name ?? null]));
  const contractOperations = Object.values(document.paths).flatMap((item) => Object.values(item) as { operationId: string; security?: Record<string, unknown>[]; 'x-required-scopes'?: string[] }[]);

  it.each(contractOperations.map((operation) => [operation.operationId, operation] as const))(
    'the contract states the access of %s as the domain declares it',
    (operationId, operation) => {
      const declared = domainOperationOf.get(operationId) ?? null;
      const expected: OperationAccess = declared ? OPERATION_ACCESS[declared] : 'public';
      expect(accessInContract(operation)).toBe(expected);
    },
  );

  it('fails when a transport disagrees (a doctored contract operation)', () => {
    const declared: DomainOperation = 'records.get';
    const doctored = { security: [{ bearerAuth: [] }, { apiKeyAuth: [] }], 'x-required-scopes': ['create'] };
    expect(accessInContract(doctored)).not.toBe(OPERATION_ACCESS[declared]);
    expect(accessInDescription('A record (scope create)')).not.toBe(OPERATION_ACCESS[declared]);
  });

  /**
   * Services name the operation they run (requireAccess and allows take a declared operation, never a
   * scope: the compiler refuses one); this scan catches the other ways to write a scope into a check.
   */
  it('is the only place a scope or a session-only rule is written for an access check', () => {
    const root = join(import.meta.dirname, '../../src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('generated.ts'));
    const scope = '(create|retrieve|verify|amend|cancel)';
    const checks = [
      /\brequireScope\(/,
      // Session-only moves name their operation too (requireAccess), and a REST route's access is its operation's.
      /\brequireSession\(|\brequireBearer\b/,
      /^\s*access: '(public|bearer|protected)'/,
      new RegExp(`\\.scopes\\.includes\\(\\s*'${scope}'`),
      new RegExp(`requiredScopes:\\s*\\[\\s*'${scope}'`),
    ];
    const found: string[] = [];
    for (const file of files) {
      if (file === join('domain', 'identity', 'operation-access.ts') || file === join('domain', 'identity', 'principal.ts')) continue;
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (checks.some((check) => check.test(line))) found.push(`${relative(process.cwd(), join(root, file))}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
    // The scan sees what it is for.
    expect(checks.some((check) => check.test("const caller = requireScope(principal, 'retrieve');"))).toBe(true);
    expect(checks.some((check) => check.test("if (!caller.scopes.includes('verify')) throw denied();"))).toBe(true);
    expect(checks.some((check) => check.test('    const caller = requireSession(principal);'))).toBe(true);
    expect(checks.some((check) => check.test("      access: 'bearer',"))).toBe(true);
  });
});

