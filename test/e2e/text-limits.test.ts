import { BODY_LIMITS, LIMITS, countCharacters, normalizeText } from '../../src/domain/text-rules.js';
import { LIMITS as WEB_LIMITS, countCharacters as webCharacters, countWords as webWords } from '../../web/src/lib/text.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp } from '../support/mcp.js';

/**
 * The text rules are declared once (src/domain/text-rules.ts) and every layer derives from them: the
 * domain's checks, the served contract's request and response schemas, the MCP tool schemas. Record
 * text is kept as sent, so the cap as sent is what answers declare: an answer never breaks its contract.
 */
describe('Record text limits, declared once', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp();
    token = await t.signIn('limits@example.com');
  });
  afterAll(async () => {
    await t.stop();
  });

  /** 300 words, each followed by a line of spaces: about 21,000 characters as sent, 2,100 after normalization. */
  const spacious = Array.from({ length: 300 }, (_, i) => `word${i}${' '.repeat(60)}\n`).join('');

  it('keeps a spacious body as sent and answers it within the contract (every answer here is checked against it)', async () => {
    expect(spacious.length).toBeGreaterThan(20_000);
    expect(spacious.length).toBeLessThanOrEqual(BODY_LIMITS.maxRawCharacters);
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ body: spacious }) });
    expect(created.status).toBe(201);
    expect(created.body.body).toBe(spacious);
    const read = await t.request('GET', `/api/v1/agreements/${created.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.body).toBe(spacious);

    const notarized = await t.request('POST', '/api/v1/notarizations', {
      token,
      body: { content_type: 'text', content_hash: created.body.body_hash, text: spacious, text_public: false },
    });
    expect(notarized.status).toBe(201);
    expect(notarized.body.record.notarization.text).toBe(spacious);
  });

  it('refuses text longer as sent than the cap over REST and GraphQL, naming the field', async () => {
    const tooLong = `Two words${' '.repeat(BODY_LIMITS.maxRawCharacters)}`;
    const rest = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ body: tooLong }) });
    expect(rest.status).toBe(422);
    expect(rest.body.detail.map((issue: { loc: string[] }) => issue.loc)).toContainEqual(['body', 'body']);

    const mutation = 'mutation Create($input: CreateAgreementInput!) { createAgreement(input: $input) { id } }';
    const input = { body: tooLong, onChainFullText: false, onChainIncludeVerifiedParties: false, parties: [{ displayName: 'Bob', contactPointValue: 'bob@example.com' }] };
    const graph = await t.graphql(mutation, { input }, { token });
    expect(graph.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error' });
    expect(graph.body.errors?.[0]?.extensions?.issues).toEqual([expect.objectContaining({ path: ['body'], type: 'too_long' })]);
  });

  it('counts the cap on what is stored: a body and a title within it as sent that Unicode NFC lengthens are refused', async () => {
    // U+0958 is two code points in NFC (U+0915 U+093C): 28,000 as sent would be stored as 31,498.
    const lengthening = `${'\u0958'.repeat(1749)} ${'\u0958'.repeat(1749)}${'\n'.repeat(24_501)}`;
    expect(countCharacters(lengthening)).toBe(BODY_LIMITS.maxRawCharacters);
    expect(countCharacters(lengthening.normalize('NFC'))).toBe(31_498);
    const body = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ body: lengthening }) });
    expect(body.status).toBe(422);
    expect(body.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'body'], type: 'too_long' }));
    const title = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: '\u0958'.repeat(LIMITS.title) }) });
    expect(title.status).toBe(422);
    expect(title.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'title'], type: 'too_long' }));
    // Within the cap as stored, both are kept.
    const kept = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: '\u0958'.repeat(LIMITS.title / 2) }) });
    expect(kept.status).toBe(201);
  });

  it('the served contract and the MCP tools state the same numbers', async () => {
    const document = (await t.request('GET', '/api/openapi.json')).body;
    const schemas = document.components.schemas;
    expect(schemas.CreateAgreementRequest.properties.body.maxLength).toBe(BODY_LIMITS.maxRawCharacters);
    expect(schemas.CreateAgreementRequest.properties.body['x-normalized-length']).toEqual({ minimum: BODY_LIMITS.minCharacters, maximum: BODY_LIMITS.maxCharacters });
    expect(schemas.ExternalAgreementResponse.properties.body.maxLength).toBe(BODY_LIMITS.maxRawCharacters);
    expect(schemas.CounterProposalResponse.properties.proposed_body.maxLength).toBe(BODY_LIMITS.maxRawCharacters);
    expect(schemas.CreateAgreementRequest.properties.title.maxLength).toBe(LIMITS.title);
    expect(schemas.CreateAgreementRequest.properties.parties.maxItems).toBe(LIMITS.parties);

    const key = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['create', 'retrieve'] } });
    const mcp = await connectMcp(t.url, { bearer: key.body.key });
    try {
      const { tools } = await mcp.client.listTools();
      const create = tools.find((tool) => tool.name === 'create_agreement')!.inputSchema.properties as Record<string, { maxLength?: number; maxItems?: number }>;
      expect(create.body!.maxLength).toBe(BODY_LIMITS.maxRawCharacters);
      expect(create.title).toBeDefined();
      expect(create.witnesses!.maxItems).toBe(LIMITS.witnesses);
      // The spacious body is accepted here as over REST.
      const made = await mcp.call('create_agreement', { body: spacious, other_party_email: 'bob@example.com', other_party_name: 'Bob', on_chain_full_text: false, on_chain_include_verified_parties: false });
      expect(made.isError).toBe(false);
    } finally {
      await mcp.close();
    }
  });

  it("the web UI's counters count with the service's own rules and limits", () => {
    expect(WEB_LIMITS.body).toBe(BODY_LIMITS);
    for (const [name, value] of Object.entries(LIMITS)) expect(WEB_LIMITS[name as keyof typeof LIMITS]).toBe(value);
    // Invisible characters and whitespace runs count as the service counts them (the web's own copy once did not).
    const typed = 'We\u200b agree  to\u2060 share\n\nthe garden.';
    expect(webCharacters(typed)).toBe(countCharacters(normalizeText(typed)));
    expect(webCharacters(typed)).toBe('We agree to share the garden.'.length);
    expect(webWords(typed)).toBe(6);
  });
});
