import { OpenAPIBackend } from 'openapi-backend';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/facade-rest/openapi/index.js';

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

let webhookValidator: ValidateFunction | null = null;

/**
 * A webhook delivery's body checked against the served contract's `webhooks` section (exactly one
 * event type's body must match): a description of the mismatch, or null.
 */
export function webhookEventViolation(body: string): string | null {
  if (!webhookValidator) {
    const { components, webhooks } = buildOpenApiDocument();
    const bodies = Object.values(webhooks).map((item) => (item as { post: { requestBody: { content: Record<string, { schema: unknown }> } } }).post.requestBody.content['application/json']!.schema);
    // oneOf decides (each variant fixes `type`); Ajv's discriminator keyword takes no mapping.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    webhookValidator = ajv.compile({ oneOf: bodies, components });
  }
  const event: unknown = JSON.parse(body);
  if (webhookValidator(event)) return null;
  return `${(event as { type?: string }).type ?? 'an event'} does not match the contract: ${JSON.stringify(webhookValidator.errors?.slice(0, 3))}`;
}
