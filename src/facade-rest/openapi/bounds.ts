/**
 * Every string, integer and array of the served document carries a limit (the OWASP API contract
 * rules, `npm run lint:contract`). Schemas that know their own limit say it where they are built
 * (body 28000 raw characters, title 200, lapse_days 1..30, ...); this pass gives the rest the limit
 * that follows from their kind, so that no schema is left unbounded by omission.
 */
import type { JsonObject, JsonValue } from './helpers.js';

/** Longest value of a string by its format; free text without a format of its own gets DEFAULT_TEXT_MAX. */
const STRING_MAX_BY_FORMAT: Record<string, number> = {
  uuid: 36,
  'date-time': 40,
  date: 10,
  email: 320,
  uri: 2048,
};

/** Free text the service writes or takes without a limit of its own (messages, hashes, names of things). */
const DEFAULT_TEXT_MAX = 10_000;

/** JSON numbers stay exact up to 2^53 - 1; int32 covers counts, versions and sizes of images. */
const INTEGER_MAX: Record<string, number> = { int32: 2_147_483_647, int64: Number.MAX_SAFE_INTEGER };

const COMBINATORS = ['anyOf', 'oneOf', 'allOf'];

function isObject(value: JsonValue | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function hasType(schema: JsonObject, type: string): boolean {
  return schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));
}

function bound(schema: JsonObject): void {
  if (schema.$ref !== undefined) return;
  const format = typeof schema.format === 'string' ? schema.format : '';
  const listed = Array.isArray(schema.enum) ? schema.enum.filter((value): value is number => typeof value === 'number') : [];
  if (hasType(schema, 'string') && schema.maxLength === undefined && schema.const === undefined && schema.enum === undefined) {
    schema.maxLength = STRING_MAX_BY_FORMAT[format] ?? DEFAULT_TEXT_MAX;
  }
  if (hasType(schema, 'integer')) {
    schema.format ??= 'int32';
    // An enumeration of integers is bounded by its values.
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = listed.length > 0 ? Math.min(...listed) : 0;
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) {
      schema.maximum = listed.length > 0 ? Math.max(...listed) : (INTEGER_MAX[typeof schema.format === 'string' ? schema.format : 'int32'] ?? INTEGER_MAX.int32!);
    }
  }
}

/** Walks a schema and everything nested in it (properties, items, combinators). */
function walkSchema(schema: JsonValue | undefined): void {
  if (!isObject(schema)) return;
  bound(schema);
  if (isObject(schema.properties)) for (const property of Object.values(schema.properties)) walkSchema(property);
  if (isObject(schema.additionalProperties)) walkSchema(schema.additionalProperties);
  walkSchema(schema.items);
  for (const key of ['if', 'then', 'else', 'not']) walkSchema(schema[key]);
  for (const key of COMBINATORS) {
    const parts = schema[key];
    if (Array.isArray(parts)) for (const part of parts) walkSchema(part);
  }
}

/** Finds every `schema` of parameters, headers and media types in the paths, and every component schema. */
function walkDocumentPart(node: JsonValue | undefined): void {
  if (Array.isArray(node)) {
    for (const item of node) walkDocumentPart(item);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema') walkSchema(value);
    else walkDocumentPart(value);
  }
}

export function boundDocument(document: { paths: Record<string, JsonObject>; components: { schemas: Record<string, JsonObject> } }): void {
  walkDocumentPart(document.paths);
  for (const schema of Object.values(document.components.schemas)) walkSchema(schema);
}
