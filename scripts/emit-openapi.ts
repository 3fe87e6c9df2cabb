/**
 * Writes the served OpenAPI document (what `GET /api/openapi.json` answers) to a file, for the
 * contract linters (npm run lint:contract) and the client's generation, and with a second file the
 * webhook deliveries' bodies as a document of schemas (npm run client:generate).
 * Usage: node dist/scripts/emit-openapi.js [file] [webhook-events-file]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/facade-rest/openapi/index.js';
import { webhookEventsDocument } from '../src/facade-rest/openapi/webhook-events.js';

async function emit(file: string, document: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

await emit(path.resolve(process.argv[2] ?? 'dist/openapi.json'), buildOpenApiDocument());
if (process.argv[3]) await emit(path.resolve(process.argv[3]), webhookEventsDocument());
