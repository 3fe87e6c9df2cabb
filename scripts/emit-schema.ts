/** Writes schema.graphql from the code (npm run schema). The test suite fails when the committed file is stale. */
import 'reflect-metadata';
import { writeFile } from 'node:fs/promises';
import { printSchemaFile } from '../src/graph/print.js';

await writeFile('schema.graphql', await printSchemaFile());
console.log('wrote schema.graphql');
