import { readFile } from 'node:fs/promises';
import { startTestApp, type TestApp } from '../support/harness.js';

describe('Meta routes and the served contract', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('GET /health answers an object of strings', async () => {
    const response = await t.request('GET', '/health');
    expect(response.status).toBe(200);
    for (const value of Object.values(response.body)) expect(typeof value).toBe('string');
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('GET /health/ready checks the database', async () => {
    const response = await t.request('GET', '/health/ready');
    expect(response).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok' } } });
  });

  it('GET /mcp/diagnostics answers 200 with the MCP endpoints', async () => {
    const response = await t.request('GET', '/mcp/diagnostics');
    expect(response.status).toBe(200);
    expect(response.body.endpoints).toEqual({ direct: '/mcp', oauth: '/mcp/oauth' });
  });

  it('serves the OpenAPI 3.1 document with every schema the spec names', async () => {
    const response = await t.request('GET', '/api/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.info.version).toBe('1.0.0');
    const spec = await readFile('../shared/spec/interface-spec.md', 'utf8').catch(() => null);
    const names = [
      'ExternalAgreementResponse',
      'ExternalAgreementPartyResponse',
      'CounterProposalResponse',
      'BlockchainRecordResponse',
      'ExternalIdenticonResponse',
      'ExternalShareCardResponse',
      'ExternalNotarizationResponse',
      'ExternalPublicAgreementResponse',
      'APIKeySchema',
      'APIKeyCreatedSchema',
      'ContactPointSchema',
      'CreateAgreementRequest',
      'CreateDeclarationRequest',
      'CreateNotarizationRequest',
      'CoNotarizerInput',
      'AmendAgreementRequest',
      'CancelAgreementRequest',
      'DeclineRequest',
      'CreateAPIKeyRequest',
      'HTTPValidationError',
    ];
    for (const name of names) {
      if (spec) expect(spec).toContain(name);
      expect(response.body.components.schemas).toHaveProperty(name);
    }
    const record = response.body.components.schemas.ExternalAgreementResponse;
    expect(record.required).toEqual(
      expect.arrayContaining(['id', 'agr_reference', 'type', 'status', 'body_hash', 'parties', 'active_counter', 'llm_analysis', 'sealed_at']),
    );
  });

  it('answers unknown routes with 404, and a draft\'s document (not sealed, so none) with 404', async () => {
    const unknown = await t.request('GET', '/api/v1/nope');
    expect(unknown).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
    const token = await t.signIn('meta@example.com');
    const draft = await t.request('GET', `/api/v1/agreements/${(await t.request('POST', '/api/v1/agreements', { token, body: { body: 'We agree on a plan for the week.', on_chain_full_text: false, on_chain_include_verified_parties: false } })).body.id}/document`, { token });
    expect(draft).toMatchObject({ status: 404, body: { error_code: 'not_found' } });
  });
});
