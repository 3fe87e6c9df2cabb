import { lexicographicSortSchema, printSchema } from 'graphql';
import { buildGraphSchema } from './schema.js';

const HEADER = '# Generated from the type-graphql resolvers (npm run schema); do not edit by hand.\n\n';

/** The committed SDL: stable order so that diffs show real changes only. */
export async function printSchemaFile(): Promise<string> {
  return HEADER + printSchema(lexicographicSortSchema(await buildGraphSchema(null))) + '\n';
}
