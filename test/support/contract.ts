import { OpenAPIBackend } from 'openapi-backend';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';
import { webhookEventsDocument } from '../../src/facade-rest/openapi/webhook-events.js';

let backend: OpenAPIBackend | null = null;

async function contract(): Promise<OpenAPIBackend> {
  if (!backend) {
    const api = new OpenAPIBackend({
      definition: buildOpenApiDocument() as never,
      quick: true,
      validate: true,
      ajvOpts: { allErrors: true, strict: false },
      customizeAjv: (ajv) => {
        addFormats.default(ajv);
        return ajv;
      },
    });
    await api.init();
    backend = api;
  }
  return backend;
}

/**
 * Every JSON response a test receives from the REST API must match the served OpenAPI document
 * for its operation and status: the contract is checked by the whole suite, not by a few tests.
 * Returns a description of the mismatch, or null.
 */
export async function contractViolation(method: string, url: string, status: number, body: unknown): Promise<string | null> {
  const path = new URL(url).pathname;
  if (!path.startsWith('/api/v1') && !path.startsWith('/health') && !path.startsWith('/mcp/diagnostics')) return null;
  const api = await contract();
  const operation = api.matchOperation({ method, path, headers: {} });
  if (!operation?.operationId) return null;
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  // 501 marks a contract operation whose capability has not landed yet: outside the contract by design.
  if (status === 501) return null;
  if (!(String(status) in responses)) return `${method} ${path}: status ${status} is not declared by ${operation.operationId}`;
  if (body === undefined || typeof body === 'string') return null;
  const result = api.validateResponse(body, operation, status);
  if (result.valid) return null;
  return `${method} ${path} ${status} does not match ${operation.operationId}: ${JSON.stringify(result.errors?.slice(0, 3))}`;
}

let webhookEvent: ValidateFunction | null = null;

/**
 * A webhook delivery's body (the raw text, or parsed) checked against the served contract's webhook
 * bodies, through `WebhookEvent`, the union the client's type is generated from (webhook-events.ts):
 * a description of the mismatch, or null.
 */
export function webhookEventViolation(body: unknown): string | null {
  if (!webhookEvent) {
    // oneOf decides (each variant fixes `type`).
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    ajv.addSchema(webhookEventsDocument(), 'webhook-events');
    webhookEvent = ajv.getSchema('webhook-events#/components/schemas/WebhookEvent')!;
  }
  const event: unknown = typeof body === 'string' ? JSON.parse(body) : body;
  if (webhookEvent(event)) return null;
  return `${JSON.stringify(event)} does not match WebhookEvent: ${JSON.stringify(webhookEvent.errors?.slice(0, 3))}`;
}
