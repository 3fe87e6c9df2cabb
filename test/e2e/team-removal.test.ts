import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startBrowserApp } from '../support/browser.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { authorizationRequest, consentOverHttp, discover, exchangeCode, registerClient, tokens } from '../support/oauth.js';
import { until, watchSubscription } from '../support/subscriptions.js';

const LIFECYCLE = `subscription ($recordId: String!) {
  recordLifecycle(recordId: $recordId) { recordId trigger toStatus }
}`;

const TEAM_FEED = `subscription ($teamId: ID) {
  recordActivity(teamId: $teamId) { recordId kind event status }
}`;

/**
 * A member removed on one instance is refused at once on another: a request, an open subscription to
 * a team record, and an MCP connection (an OAuth connector the member let act for the team).
 */
describe('Team removal across instances', () => {
  let a: TestApp & { origin: string };
  let b: TestApp;

  beforeAll(async () => {
    a = await startBrowserApp();
    // The second instance of the same deployment: the same public address and database.
    b = await startTestApp({ PUBLIC_BASE_URL: a.origin, OTP_REQUESTS_PER_WINDOW: '50' }, { sameDatabaseAs: a });
  }, 60_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('ends the request, the subscription and the MCP access of a removed member; the team keeps the record', async () => {
    const admin = await a.signIn('ann@team.example');
    const member = await a.signIn('mo@team.example');
    const team = (await a.request('POST', '/api/v1/teams', { token: admin, body: { name: 'Removal Co' } })).body;
    await a.request('POST', `/api/v1/teams/${team.id}/invitations`, { token: admin, body: { email: 'mo@team.example', role: 'member' } });
    const mail = await a.smtp.waitFor('mo@team.example', (m) => m.subject.startsWith('You are invited'));
    const token = /(rss_tinv_[A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
    expect((await a.request('POST', `/api/v1/team-invitations/${token}/accept`, { token: member })).status).toBe(200);
    const record = (await a.request('POST', '/api/v1/agreements', { token: member, body: agreementBody({ team_id: team.id, parties: [{ display_name: 'Pat', contact_point_value: 'pat@outside.example' }] }) })).body;

    // The member connects an assistant and lets it act for the team (the consent page's last step).
    const d = await discover(a.origin);
    const client = await registerClient(d.as, { redirect_uris: ['https://assistant.example/callback'] });
    const request = await authorizationRequest(d.as, client, d.resource);
    const callback = await consentOverHttp(a, request, 'mo@team.example', undefined, [team.id]);
    const issued = await tokens(d, client, await exchangeCode(d, client, request, callback));
    const mcp = new Client({ name: 'assistant', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp/oauth', b.url), { requestInit: { headers: { Authorization: `Bearer ${issued.access_token}` } } }));
    const teams = (await mcp.callTool({ name: 'list_teams', arguments: {} })) as CallToolResult;
    expect(teams.structuredContent).toMatchObject({ teams: [{ id: team.id, name: 'Removal Co', role: 'member' }] });
    const listed = (await mcp.callTool({ name: 'list_agreements', arguments: { team_id: team.id } })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ agreements: [{ agr_reference: record.agr_reference }] });

    // An open subscription on the other instance.
    const watch = watchSubscription(b, member, LIFECYCLE, 'recordLifecycle', { recordId: record.id });
    await watch.ready;
    expect(watch.errors).toEqual([]);

    const [row] = (await a.request('GET', `/api/v1/teams/${team.id}/members`, { token: admin })).body.members.filter((m: { email: string }) => m.email === 'mo@team.example');
    expect((await a.request('DELETE', `/api/v1/teams/${team.id}/members/${row.id}`, { token: admin })).status).toBe(204);

    expect((await b.request('GET', `/api/v1/agreements/${record.id}`, { token: member })).status).toBe(404);
    const refused = (await mcp.callTool({ name: 'list_agreements', arguments: { team_id: team.id } })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.structuredContent)).toContain('not_found');
    expect(((await mcp.callTool({ name: 'list_teams', arguments: {} })) as CallToolResult).structuredContent).toMatchObject({ teams: [] });
    await until(() => watch.errors.length > 0, 'the subscription to end with an error');
    expect(JSON.stringify(watch.errors)).toContain('not found');

    // The team keeps the record; the member's own records are untouched.
    expect((await b.request('GET', `/api/v1/agreements/${record.id}`, { token: admin })).status).toBe(200);
    expect((await b.request('GET', `/api/v1/teams/${team.id}/agreements`, { token: admin })).body.agreements.map((r: { id: string }) => r.id)).toEqual([record.id]);
    await mcp.close();
    await watch.dispose();

    // The team's dashboard: the admin's feed of the team's records on one instance hears a change made
    // on the other (an admin acts on a member's draft as its initiator may); the removed member's is refused.
    const dashboard = watchSubscription<{ recordId: string; status: string | null }>(b, admin, TEAM_FEED, 'recordActivity', { teamId: team.id });
    const refusedFeed = watchSubscription(b, member, TEAM_FEED, 'recordActivity', { teamId: team.id });
    await Promise.all([dashboard.ready, refusedFeed.ready]);
    expect((await a.request('POST', `/api/v1/agreements/${record.id}/cancel`, { token: admin, body: {} })).status).toBe(201);
    await until(() => dashboard.events.some((e) => e.recordId === record.id && e.status === 'cancelled_draft'), "the team's feed to hear the cancellation");
    expect(dashboard.errors).toEqual([]);
    await until(() => refusedFeed.errors.length > 0, "the removed member's team feed to be refused");
    await dashboard.dispose();
    await refusedFeed.dispose();
  });
});
