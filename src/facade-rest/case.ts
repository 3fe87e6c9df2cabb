/** Key case conversion between the REST contract (snake_case) and GraphQL (camelCase). */

const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const toSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Free-form JSON objects whose keys belong to the client, not to the contract. */
const OPAQUE = new Set(['metadata', 'llmAnalysis', 'llm_analysis', 'credential']);

function convert(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => convert(item, rename));
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [rename(key), OPAQUE.has(key) ? item : convert(item, rename)]),
  );
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
