/**
 * Writes the served OpenAPI document (what `GET /api/openapi.json` answers) to a file, for the
 * contract linters (npm run lint:contract). Usage: node dist/scripts/emit-openapi.js [file]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/facade-rest/openapi/index.js';

const file = path.resolve(process.argv[2] ?? 'dist/openapi.json');
await mkdir(path.dirname(file), { recursive: true });
await writeFile(file, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file)}`);
