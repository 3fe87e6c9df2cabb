import { request as httpRequest } from 'node:http';
import { BODY_LIMITS } from '../../src/domain/text-rules.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp, INITIALIZE, postMcp } from '../support/mcp.js';

/** The 17 named tools and the seven preview/execute pairs. */
const TOOL_NAMES = [
  'get_authentication_status',
  'request_authentication_otp',
  'verify_authentication_otp',
  'verify_agreement',
  'create_agreement',
  'get_agreement',
  'list_agreements',
  'list_teams',
  'list_templates',
  'get_template',
  'create_record_from_template',
  'bulk_send_template',
  'get_bulk_send',
  'export_records',
  'get_export',
  'get_agreement_card',
  'start_or_resume_signature_execution',
  'start_signature_method',
  'submit_signature_method_input',
  'refresh_signature_method',
  'finalize_signature_execution',
  'preview_amendment',
  'amend_agreement',
  'preview_draft_change',
  'apply_draft_change',
  'preview_participant_change',
  'apply_participant_change',
  'preview_invitation_resend',
  'resend_invitation',
  'preview_cancellation',
  'cancel_agreement',
  'preview_decline',
  'decline_agreement',
  'preview_counter_resolution',
  'resolve_counter',
];

describe('MCP transport: Streamable HTTP at /mcp', () => {
  let t: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    second = await startTestApp({}, { sameDatabaseAs: t });
  });
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  it('follows the spec\'s five steps: initialize, session id, initialized, tools/list, tools/call', async () => {
    const initialized = await postMcp(t.url, INITIALIZE);
    expect(initialized.status).toBe(200);
    const sessionId = initialized.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/^rss_mcps_/);
    const init = initialized.json();
    expect(init.result.protocolVersion).toBe('2025-06-18');
    expect(init.result.serverInfo.name).toBe('record-signing');
    expect(init.result.capabilities.tools).toBeDefined();

    const session = { 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-06-18' };
    const notified = await postMcp(t.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    expect(notified.status).toBe(202);

    const listed = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toContain('text/event-stream');
    expect(listed.json().result.tools).toHaveLength(35);

    const called = await postMcp(t.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_authentication_status', arguments: {} } }, session);
    expect(called.json().result.structuredContent).toMatchObject({ authenticated: false, scopes: [], auth_method: null, session_bound: false });
  });

  it('negotiates a newer protocol version when the client asks for one, and the latest for an unknown one', async () => {
    const newer = await postMcp(t.url, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-11-25' } });
    expect(newer.json().result.protocolVersion).toBe('2025-11-25');
    const unknown = await postMcp(t.url, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '1999-01-01' } });
    expect(unknown.json().result.protocolVersion).toBe('2025-11-25');
  });

  it('answers 406 to a client that does not accept text/event-stream', async () => {
    const refused = await postMcp(t.url, INITIALIZE, { accept: 'application/json' });
    expect(refused.status).toBe(406);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
  });

  it('refuses a foreign Origin and a foreign Host (DNS-rebinding protection)', async () => {
    const origin = await postMcp(t.url, INITIALIZE, { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    const allowed = await postMcp(t.url, INITIALIZE, { origin: t.url });
    expect(allowed.status).toBe(200);

    const port = new URL(t.url).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { host: `rebound.example:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(INITIALIZE));
    });
    expect(status).toBe(403);
  });

  it('answers a missing session id with 400 and an unknown one with 404', async () => {
    const missing = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(missing.status).toBe(400);
    const unknown = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'rss_mcps_unknown' });
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.code).toBe(-32001);
  });

  it('offers no server-initiated stream (405 on GET) and ends a session on DELETE', async () => {
    const mcp = await connectMcp(t.url);
    const sessionId = mcp.transport.sessionId!;
    const get = await fetch(new URL('/mcp', t.url), { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(get.status).toBe(405);
    await mcp.transport.terminateSession();
    const after = await postMcp(t.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId });
    expect(after.status).toBe(404);
    await mcp.close();
  });

  it('continues a session on another instance of the same database (no sticky balancer needed)', async () => {
    const opened = await postMcp(t.url, INITIALIZE);
    const sessionId = opened.headers.get('mcp-session-id')!;
    const elsewhere = await postMcp(second.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sessionId });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.json().result.tools).toHaveLength(35);
    const ended = await fetch(new URL('/mcp', second.url), { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(ended.status).toBe(200);
    const back = await postMcp(t.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sessionId });
    expect(back.status).toBe(404);
  });

  it('lists all 35 tools with descriptions, input and output schemas and annotations (SDK client)', async () => {
    const mcp = await connectMcp(t.url);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.annotations).toEqual(expect.objectContaining({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean) }));
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.create_agreement!.inputSchema.required).toEqual(expect.arrayContaining(['body', 'on_chain_full_text', 'on_chain_include_verified_parties']));
    // The text as sent is capped; the spec's 10..7000 characters count the normalized text (the description says so).
    expect((byName.create_agreement!.inputSchema.properties as any).body).toMatchObject({ minLength: 1, maxLength: BODY_LIMITS.maxRawCharacters });
    expect((byName.create_agreement!.inputSchema.properties as any).body.description).toContain('10..7000 characters and 2..350 words after normalization');
    expect((byName.list_agreements!.inputSchema.properties as any).limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(byName.verify_agreement!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.cancel_agreement!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    // Open world: the tools that mail or message a person, fetch a public proof post, or may seal a record (anchored on a public chain).
    expect(tools.filter((tool) => tool.annotations?.openWorldHint).map((tool) => tool.name).sort()).toEqual(
      [
        'request_authentication_otp',
        'start_signature_method',
        'submit_signature_method_input',
        'refresh_signature_method',
        'finalize_signature_execution',
        'apply_draft_change',
        'apply_participant_change',
        'resend_invitation',
        // With submit: true it invites every row's parties.
        'bulk_send_template',
      ].sort(),
    );
    expect(tools.every((tool) => typeof tool.annotations?.openWorldHint === 'boolean')).toBe(true);
    expect(Object.keys(byName.amend_agreement!.inputSchema.properties as object)).toEqual(expect.arrayContaining(['confirmation_token', 'agreement_version']));
    await mcp.close();
  });

  it('gives the server and every tool an icon: a PNG the service serves itself', async () => {
    const mcp = await connectMcp(t.url);
    const icon = { src: new URL('/icon.png', t.config.publicBaseUrl).href, mimeType: 'image/png', sizes: ['96x96'] };
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'record-signing', icons: [icon] });
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) expect(tool).toMatchObject({ title: expect.any(String), icons: [icon] });
    await mcp.close();
    const served = await fetch(new URL('/icon.png', t.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await served.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([96, 96]);
  });

  it('reports the real catalogue in /mcp/diagnostics', async () => {
    const response = await t.request('GET', '/mcp/diagnostics');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: 'ok',
      tool_count: 35,
      endpoints: { direct: '/mcp', oauth: '/mcp/oauth' },
      auth_modes: ['public', 'api_key', 'mcp_otp', 'mcp_transport_token', 'oauth'],
    });
    expect(response.body.tools.sort()).toEqual([...TOOL_NAMES].sort());
    expect(response.body.protocol_versions).toEqual(expect.arrayContaining(['2025-06-18', '2025-11-25']));
  });

  it('answers JSON-RPC errors for an unknown tool', async () => {
    const mcp = await connectMcp(t.url);
    await expect(mcp.client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await mcp.close();
  });
});
