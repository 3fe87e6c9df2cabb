/** Key case conversion between the REST contract (snake_case) and GraphQL (camelCase). */

/** Renames remembered per key: the contract's keys are few, and every response converts them. */
function remembered(rename: (key: string) => string): (key: string) => string {
  const known = new Map<string, string>();
  return (key) => {
    let renamed = known.get(key);
    if (renamed === undefined) {
      renamed = rename(key);
      // Bounded: keys from clients' own objects (opaque ones excepted) could be endless.
      if (known.size < 10_000) known.set(key, renamed);
    }
    return renamed;
  };
}

const toCamel = remembered((key) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
const toSnake = remembered((key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));

/** Free-form JSON objects whose keys belong to the client, not to the contract. */
const OPAQUE = new Set(['metadata', 'llmAnalysis', 'llm_analysis', 'credential']);

function convert(value: unknown, rename: (key: string) => string): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) items[index] = convert(value[index], rename);
    return items;
  }
  const out: Record<string, unknown> = {};
  const source = value as Record<string, unknown>;
  for (const key in source) {
    // GraphQL results and JSON bodies are plain objects; nothing inherited is the client's.
    if (!Object.hasOwn(source, key)) continue;
    const item = source[key];
    const converted = item === null || typeof item !== 'object' || OPAQUE.has(key) ? item : convert(item, rename);
    // A client's "__proto__" key stays a plain property (assignment would set the prototype).
    if (key === '__proto__') Object.defineProperty(out, rename(key), { value: converted, enumerable: true, writable: true, configurable: true });
    else out[rename(key)] = converted;
  }
  return out;
}

export function snakeKeys<T = unknown>(value: unknown): T {
  return convert(value, toSnake) as T;
}

export function camelKeys<T = unknown>(value: unknown): T {
  return convert(value, toCamel) as T;
}

export function snakeCase(key: string): string {
  return toSnake(key);
}
