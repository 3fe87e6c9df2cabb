import { z } from 'zod';
import { LIMITS, rangeOf } from '../../src/domain/text-rules.js';
import { readdirSync, readFileSync } from 'node:fs';
import { INPUT_CONTACT_POINT_TYPES, PARTY_CONTACT_POINT_TYPES, RECORD_STATUSES, RECORD_TYPES, SCOPE_DESCRIPTIONS, scopesList, SIGNING_ORDERS } from '../../src/domain/vocabulary.js';
import { TOOLS } from '../../src/facade-mcp/tools/index.js';
import { EXPORTABLE_STATUSES } from '../../src/domain/exports/entities.js';
import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';

type JsonSchema = { type?: string | string[]; enum?: unknown[]; minimum?: number; maximum?: number; default?: unknown; properties?: Record<string, JsonSchema>; [key: string]: unknown };

/** Every sub-schema of a JSON Schema with its property name, however deep (items, anyOf, properties...). */
function* named(schema: unknown, name = ''): Generator<[string, JsonSchema]> {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const item of schema) yield* named(item, name);
    return;
  }
  const object = schema as JsonSchema;
  if (name) yield [name, object];
  for (const [key, value] of Object.entries(object)) {
    if (key === 'properties' && value && typeof value === 'object') for (const [property, sub] of Object.entries(value)) yield* named(sub, property);
    else if (key !== 'properties') yield* named(value, key === 'items' || key === 'anyOf' || key === 'oneOf' || key === 'allOf' ? name : '');
  }
}

const toolSchemas = TOOLS.map((tool) => [tool.name, z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' })] as const);
const openApi = buildOpenApiDocument();

/** The schemas named `property` in every MCP tool's input and in the served OpenAPI document. */
function everywhere(property: string): { where: string; schema: JsonSchema }[] {
  const found: { where: string; schema: JsonSchema }[] = [];
  for (const [tool, schema] of toolSchemas) for (const [name, sub] of named(schema)) if (name === property) found.push({ where: `MCP ${tool}`, schema: sub });
  for (const [name, sub] of named(openApi)) if (name === property) found.push({ where: 'OpenAPI', schema: sub });
  // Query parameters name their schema beside it.
  for (const [, item] of Object.entries(openApi.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { parameters?: { name: string; schema: JsonSchema }[] }>)) {
      for (const parameter of operation?.parameters ?? []) if (parameter.name === property) found.push({ where: 'OpenAPI query', schema: parameter.schema });
    }
  }
  return found.filter(({ schema }) => schema.type !== undefined || schema.enum !== undefined);
}

describe('One fact, one definition: every transport states the vocabulary and limits of vocabulary.ts and LIMITS', () => {
  // Each property's enumerations are one of these vocabularies (a template never makes a notarization; answers name
  // a participant's contact point `unknown` when it was never given).
  it.each([
    // An export takes only the statuses of sealed records.
    ['status', [RECORD_STATUSES, EXPORTABLE_STATUSES]],
    ['type', [RECORD_TYPES, RECORD_TYPES.filter((type) => type !== 'notarization')]],
    ['record_type', [RECORD_TYPES, RECORD_TYPES.filter((type) => type !== 'notarization')]],
    ['contact_point_type', [INPUT_CONTACT_POINT_TYPES, PARTY_CONTACT_POINT_TYPES]],
    ['signing_order', [SIGNING_ORDERS]],
  ] as const)('every `%s` enumeration of these words is one of the vocabularies', (property, vocabularies) => {
    const sorted = (values: readonly unknown[]) => JSON.stringify([...values].filter((value) => value !== null).sort());
    const words = new Set<unknown>(vocabularies.flat());
    // An enumeration of these words: most of its values are theirs (a team invitation's status shares only
    // `declined` and `expired` with a record's).
    const enums = everywhere(property).filter(({ schema }) => Array.isArray(schema.enum) && schema.enum.filter((value) => words.has(value)).length * 2 > schema.enum.length);
    expect(enums.length).toBeGreaterThan(0);
    const allowed = vocabularies.map(sorted);
    for (const { where, schema } of enums) expect({ where, values: sorted(schema.enum!), known: allowed.includes(sorted(schema.enum!)) }).toEqual({ where, values: sorted(schema.enum!), known: true });
  });

  it('page sizes are LIMITS.pageSize wherever a listing takes `limit`', () => {
    const limits = everywhere('limit').filter(({ schema }) => schema.maximum === 100 || schema.maximum === LIMITS.pageSize.max);
    expect(limits.length).toBeGreaterThanOrEqual(3);
    for (const { where, schema } of limits) expect({ where, min: schema.minimum, max: schema.maximum }).toEqual({ where, min: LIMITS.pageSize.min, max: LIMITS.pageSize.max });
  });

  it('signature methods per signer are LIMITS.signatureMethods wherever they are set', () => {
    const counts = everywhere('required_signature_method_count');
    expect(counts.length).toBeGreaterThanOrEqual(3);
    for (const { where, schema } of counts) {
      const bounds = schema.enum ? { min: Math.min(...(schema.enum as number[])), max: Math.max(...(schema.enum as number[])) } : { min: schema.minimum, max: schema.maximum };
      // Answers state the count as any integer; inputs bound it.
      if (bounds.min === undefined && bounds.max === undefined) continue;
      expect({ where, ...bounds }).toEqual({ where, ...LIMITS.signatureMethods });
    }
    expect(rangeOf(LIMITS.signatureMethods)).toEqual([1, 2, 3]);
  });

  it('lapse days are LIMITS.lapseDays wherever they are set', () => {
    const days = everywhere('lapse_days').filter(({ schema }) => schema.minimum !== undefined || schema.maximum !== undefined);
    expect(days.length).toBeGreaterThanOrEqual(2);
    for (const { where, schema } of days) expect({ where, min: schema.minimum, max: schema.maximum }).toEqual({ where, ...LIMITS.lapseDays });
  });

  it("the scopes' words are one list: the docs show it, the consent page and the keys page read it", () => {
    expect(readFileSync(new URL('../../docs/authentication.md', import.meta.url), 'utf8')).toContain(scopesList());
    expect(readFileSync(new URL('../../web/src/pages/key-parts.tsx', import.meta.url), 'utf8')).toContain('SCOPE_DESCRIPTIONS[scope]');
    expect(readFileSync(new URL('../../src/facade-oauth/pages.ts', import.meta.url), 'utf8')).toContain('= SCOPE_DESCRIPTIONS');
    expect(Object.keys(SCOPE_DESCRIPTIONS)).toEqual(['create', 'retrieve', 'verify', 'amend', 'cancel', 'offline_access']);
  });

  it('every Cache-Control value comes from the one policy (domain/shared/cache-policy.ts)', () => {
    const root = new URL('../../src/', import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('cache-policy.ts'));
    const literal = /Cache-Control'?\s*[:,]\s*(header\([^,]+,\s*)?'[^']*'/i;
    const found = files.flatMap((file) => readFileSync(new URL(file, root), 'utf8').split('\n').filter((line) => literal.test(line)).map((line) => `${file}: ${line.trim()}`));
    expect(found).toEqual([]);
    expect(literal.test("res.setHeader('Cache-Control', 'no-store');")).toBe(true);
    expect(literal.test("{ 'Cache-Control': 'private, no-cache' }")).toBe(true);
  });
});
