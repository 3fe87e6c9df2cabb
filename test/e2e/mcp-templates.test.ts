import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startBrowserApp } from '../support/browser.js';
import type { TestApp } from '../support/harness.js';
import { connectMcp, type McpClient } from '../support/mcp.js';
import { authorizationRequest, consentOverHttp, discover, exchangeCode, registerClient, tokens } from '../support/oauth.js';

/** One party role, three fields: what an assistant fills from the human's words. */
const LEASE = {
  name: 'Garden lease',
  title: 'Lease of {{plot}}',
  body: 'The tenant {{tenant_name}} leases the garden plot {{plot}} from the owner for {{months}} months, and keeps it tidy and watered throughout.',
  parties: [{ label: 'Tenant' }],
  fields: [{ name: 'tenant_name', label: 'Tenant name', max_length: 50 }, { name: 'plot', label: 'Plot number', max_length: 10 }, { name: 'months', label: 'Months' }],
};

const TENANT = [{ display_name: 'Tess Tenant', contact_point_value: 'tess@garden.example' }];
const VALUES = { tenant_name: 'Tess Tenant', plot: 'B-12', months: '6' };

/**
 * Templates over MCP (list_templates, get_template, create_record_from_template) through the SDK's
 * own client: the journey an assistant follows, and who may use them.
 */
describe('MCP templates', () => {
  let t: TestApp & { origin: string };
  let owner: string;
  let teamId: string;
  let personal: string;
  let shared: string;
  const open: McpClient[] = [];

  const connect = async (bearer?: string) => {
    const client = await connectMcp(t.url, { bearer });
    open.push(client);
    return client;
  };
  const key = async (scopes: string[]) => (await t.request('POST', '/api/v1/api-keys', { token: owner, body: { scopes } })).body.key as string;
  const recordCount = async () => (await t.request('GET', '/api/v1/identity/agreements', { token: owner })).body.total as number;

  /** An OAuth connector of the owner that may act for `teams` (chosen on the consent page). */
  async function connector(teams: string[]): Promise<Client> {
    const d = await discover(t.origin);
    const client = await registerClient(d.as, { redirect_uris: ['https://assistant.example/callback'] });
    const request = await authorizationRequest(d.as, client, d.resource);
    const callback = await consentOverHttp(t, request, 'landlord@garden.example', undefined, teams);
    const issued = await tokens(d, client, await exchangeCode(d, client, request, callback));
    const mcp = new Client({ name: 'assistant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp/oauth', t.url), { requestInit: { headers: { Authorization: `Bearer ${issued.access_token}` } } }));
    return mcp;
  }
  const callOn = async (mcp: Client, name: string, args: Record<string, unknown>) => {
    const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    return { isError: result.isError === true, structured: result.structuredContent as any };
  };

  beforeAll(async () => {
    t = await startBrowserApp();
    owner = await t.signIn('landlord@garden.example');
    teamId = (await t.request('POST', '/api/v1/teams', { token: owner, body: { name: 'Garden Co' } })).body.id;
    personal = (await t.request('POST', '/api/v1/templates', { token: owner, body: LEASE })).body.id;
    shared = (await t.request('POST', '/api/v1/templates', { token: owner, body: { ...LEASE, name: 'Team lease', team_id: teamId } })).body.id;
  });
  afterAll(async () => {
    for (const client of open) await client.close();
    await t?.stop();
  });

  it('lists, reads, refuses a draft with a missing value naming the field, then makes the draft by following next_action', async () => {
    const mcp = await connect(await key(['create', 'retrieve', 'verify']));
    const listed = await mcp.call('list_templates');
    expect(listed.isError).toBe(false);
    expect(listed.structured.templates).toEqual([expect.objectContaining({ id: personal, name: 'Garden lease', team_id: null, record_type: 'agreement' })]);
    expect(listed.structured.next_action).toMatchObject({ tool: 'get_template', arguments: { template_id: personal } });

    const read = await mcp.call(listed.structured.next_action.tool, listed.structured.next_action.arguments);
    expect(read.structured.template).toMatchObject({ id: personal, fields: [{ name: 'tenant_name', label: 'Tenant name', required: true, max_length: 50 }, { name: 'plot' }, { name: 'months' }], parties: [{ label: 'Tenant', role: 'party' }] });
    expect(read.structured.next_action).toMatchObject({ tool: 'create_record_from_template', arguments: { template_id: personal, values: { tenant_name: '<Tenant name>' } } });
    expect(read.structured.human_step).toContain('Plot number');

    const before = await recordCount();
    const missing = await mcp.call('create_record_from_template', { template_id: personal, values: { tenant_name: 'Tess Tenant', plot: 'B-12' }, parties: TENANT });
    expect(missing.isError).toBe(true);
    expect(missing.structured).toMatchObject({ error_code: 'validation_error', issues: [{ path: ['values', 'months'], type: 'missing' }] });
    expect(missing.structured.message).toContain('Months');
    expect(await recordCount()).toBe(before);

    const made = await mcp.call('create_record_from_template', { template_id: personal, values: VALUES, parties: TENANT });
    expect(made.isError).toBe(false);
    expect(made.structured).toMatchObject({
      status: 'draft',
      agreement_version: 1,
      next_action: { tool: 'start_or_resume_signature_execution' },
      agreement: { title: 'Lease of B-12', initiated_via: 'mcp', team_id: null, template: { id: personal, version: 1 } },
    });
    expect(made.structured.agreement.body).toBe('The tenant Tess Tenant leases the garden plot B-12 from the owner for 6 months, and keeps it tidy and watered throughout.');
    expect(await recordCount()).toBe(before + 1);
  });

  it('lets a retrieve-only credential read templates but never create: an API key and an MCP sign-in grant alike', async () => {
    const reader = await connect(await key(['retrieve']));
    expect((await reader.call('get_template', { template_id: personal })).isError).toBe(false);
    const refused = await reader.call('create_record_from_template', { template_id: personal, values: VALUES, parties: TENANT });
    expect(refused).toMatchObject({ isError: true, structured: { error_code: 'missing_scope', required_scopes: ['create'] } });

    const session = await connect();
    const before = t.smtp.messages.length;
    const requested = await session.call('request_authentication_otp', { email: 'landlord@garden.example' });
    const code = await t.smtp.codeFor('landlord@garden.example', before);
    expect((await session.call('verify_authentication_otp', { verification_event_id: requested.structured.verification_event_id, code })).structured).toMatchObject({ scopes: ['retrieve'] });
    expect((await session.call('list_templates')).structured.templates).toEqual([expect.objectContaining({ id: personal })]);
    const count = await recordCount();
    const denied = await session.call('create_record_from_template', { template_id: personal, values: VALUES, parties: TENANT });
    expect(denied).toMatchObject({ isError: true, structured: { error_code: 'missing_scope', required_scopes: ['create'] } });
    expect(await recordCount()).toBe(count);
    // A retrieval grant acts for no team: the team's template is not there for it.
    expect((await session.call('get_template', { template_id: shared })).structured).toMatchObject({ error_code: 'not_found' });
  });

  it("reaches a team's templates only through a credential that acts for the team; a team's template makes the team's record", async () => {
    // A personal API key acts for the person alone.
    const personalKey = await connect(await key(['create', 'retrieve']));
    expect((await personalKey.call('list_templates', { team_id: teamId })).structured).toMatchObject({ error_code: 'not_found' });
    expect((await personalKey.call('create_record_from_template', { template_id: shared, values: VALUES, parties: TENANT })).structured).toMatchObject({ error_code: 'not_found' });

    // A connector that was not let act for the team does not see it either; one that was, does.
    const outside = await connector([]);
    expect((await callOn(outside, 'get_template', { template_id: shared })).structured).toMatchObject({ error_code: 'not_found' });
    await outside.close();
    const inside = await connector([teamId]);
    const listed = await callOn(inside, 'list_templates', { team_id: teamId });
    expect(listed.structured.templates).toEqual([expect.objectContaining({ id: shared, team_id: teamId })]);
    const made = await callOn(inside, 'create_record_from_template', { template_id: shared, values: VALUES, parties: TENANT });
    expect(made.isError).toBe(false);
    expect(made.structured.agreement).toMatchObject({ team_id: teamId, template: { id: shared }, initiated_via: 'mcp' });
    await inside.close();

    // A team's own key reads the team's templates, and cannot initiate a record its initiator must sign.
    const teamKey = (await t.request('POST', `/api/v1/teams/${teamId}/api-keys`, { token: owner, body: { scopes: ['create', 'retrieve'] } })).body.key as string;
    const team = await connect(teamKey);
    expect((await team.call('list_templates')).structured.templates).toEqual([expect.objectContaining({ id: shared })]);
    expect((await team.call('create_record_from_template', { template_id: shared, values: VALUES, parties: TENANT })).structured).toMatchObject({
      error_code: 'validation_error',
      issues: [{ type: 'team_never_signs' }],
    });
  });
});
