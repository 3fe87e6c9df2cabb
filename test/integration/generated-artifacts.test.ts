import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { printSchemaFile } from '../../src/graph/print.js';

describe('Generated artifacts', () => {
  it('schema.graphql matches the schema the code builds (run `npm run schema` when this fails)', async () => {
    const committed = await readFile('schema.graphql', 'utf8');
    expect(committed).toBe(await printSchemaFile());
  });
});
