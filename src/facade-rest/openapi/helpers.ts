/**
 * Small builders for the served OpenAPI 3.1 document. They only produce plain JSON Schema 2020-12 /
 * OpenAPI objects; nothing here is OpenAPI-tool specific. Every builder returns a fresh object so a
 * consumer that mutates the document (dereferencing, for instance) cannot corrupt a later build.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };
export type Schema = JsonObject;

/** Keywords any schema builder accepts on top of its own (description, constraints, default...). */
export type SchemaOptions = JsonObject;

export function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * Makes a schema accept null, the OpenAPI 3.1 way: a primitive `type` becomes a type array (an
 * `enum` gains `null`); anything else ($ref, const, combinators) is wrapped in `anyOf`.
 */
export function nullable(schema: Schema, options: SchemaOptions = {}): Schema {
  const { type } = schema;
  if (typeof type === 'string' && schema.$ref === undefined && schema.const === undefined) {
    const widened: Schema = { ...schema, type: [type, 'null'], ...options };
    if (Array.isArray(schema.enum)) widened.enum = [...schema.enum, null];
    return widened;
  }
  return { anyOf: [schema, { type: 'null' }], ...options };
}

export function str(options: SchemaOptions = {}): Schema {
  return { type: 'string', ...options };
}

export function int(options: SchemaOptions = {}): Schema {
  return { type: 'integer', ...options };
}

export function bool(options: SchemaOptions = {}): Schema {
  return { type: 'boolean', ...options };
}

export function uuid(options: SchemaOptions = {}): Schema {
  return { type: 'string', format: 'uuid', ...options };
}

export function dateTime(options: SchemaOptions = {}): Schema {
  return { type: 'string', format: 'date-time', ...options };
}

export function enumOf(values: readonly string[], options: SchemaOptions = {}): Schema {
  return { type: 'string', enum: [...values], ...options };
}

export function arrayOf(items: Schema, options: SchemaOptions = {}): Schema {
  return { type: 'array', items, ...options };
}

/** A free-form JSON object. */
export function freeObject(options: SchemaOptions = {}): Schema {
  return { type: 'object', additionalProperties: true, ...options };
}

/**
 * An object schema. `required` lists the property names that must be present (nullable ones
 * included); pass 'all' when every property is required.
 */
export function obj(
  properties: Record<string, Schema>,
  required: readonly string[] | 'all' = [],
  options: SchemaOptions = {},
): Schema {
  const names = required === 'all' ? Object.keys(properties) : [...required];
  for (const name of names) {
    if (!(name in properties)) throw new Error(`OpenAPI: required property '${name}' is not declared`);
  }
  const schema: Schema = { type: 'object', properties: { ...properties } };
  if (names.length > 0) schema.required = names;
  return { ...schema, ...options };
}

/** `{ content: { 'application/json': { schema } } }` */
export function jsonContent(schema: Schema): JsonObject {
  return { 'application/json': { schema } };
}

export function jsonBody(schema: Schema, required: boolean, description?: string): JsonObject {
  const body: JsonObject = { required, content: jsonContent(schema) };
  if (description !== undefined) body.description = description;
  return body;
}
