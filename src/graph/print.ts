import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildGraphSchema } from './schema.js';

const HEADER = '# Generated from the type-graphql resolvers (npm run schema); do not edit by hand.\n\n';

/** The committed SDL: stable order so that diffs show real changes only. */
export async function printSchemaFile(): Promise<string> {
  // Printing needs no live PubSub: subscriptions are only declared here.
  const pubSub = { publish: () => undefined, subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true as const, value: undefined }) }) }) };
  return HEADER + printSchema(lexicographicSortSchema(await buildGraphSchema(null, { pubSub }))) + '\n';
}
