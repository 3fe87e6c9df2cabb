type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: boolean | Schema;
};

/**
 * Drops properties the contract does not define (the spec: unknown properties are ignored unless a
 * schema says otherwise; where it does, validation has already refused them), so that a client
 * sending extra fields does not trip the strict GraphQL input types.
 */
export function pruneToSchema(value: unknown, schema: Schema | undefined, schemas: Record<string, Schema>): unknown {
  if (!schema || value === null || typeof value !== 'object') return value;
  const resolved = resolve(schema, schemas);
  if (Array.isArray(value)) return value.map((item) => pruneToSchema(item, resolved.items, schemas));
  const variants = [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])]
    .map((variant) => resolve(variant, schemas))
    .filter((variant) => variant.properties || variant.items);
  const properties = resolved.properties ?? (variants.length === 1 ? variants[0]?.properties : undefined);
  if (!properties) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      // Own properties only: `toString`, `constructor` or `__proto__` in a body are unknown fields, not the prototype's.
      .filter(([key]) => Object.hasOwn(properties, key))
      .map(([key, item]) => [key, pruneToSchema(item, properties[key], schemas)]),
  );
}

function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  let current = schema;
  for (let depth = 0; current.$ref && depth < 10; depth += 1) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = schemas[name] ?? {};
  }
  return current;
}
