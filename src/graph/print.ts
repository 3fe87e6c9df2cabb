import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildGraphSchema } from './schema.js';

const HEADER = '# Generated from the type-graphql resolvers (npm run schema); do not edit by hand.\n\n';

/** The schema with its types and fields only, to read or print: no resolvers, no live PubSub (subscriptions are only declared). */
export function declaredSchema(): Promise<GraphQLSchema> {
  const pubSub = { publish: () => undefined, subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true as const, value: undefined }) }) }) };
  return buildGraphSchema(null, { pubSub });
}

/** The committed SDL: stable order so that diffs show real changes only. */
export async function printSchemaFile(): Promise<string> {
  return HEADER + printSchema(lexicographicSortSchema(await declaredSchema())) + '\n';
}
