import { OPERATION_ACCESS, TEAM_OPERATION_ROLES, type TeamOperation } from '../../src/domain/identity/operation-access.js';
import { roleAtLeast } from '../../src/domain/teams/team-access.js';
import type { TeamRole } from '../../src/domain/vocabulary.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';

/** Every kind of caller a team operation can meet. */
const PRINCIPALS = ['admin', 'member', 'viewer', 'outsider', 'removed member', 'team key', "member's personal key"] as const;
type Who = (typeof PRINCIPALS)[number];
const ROLES: Partial<Record<Who, TeamRole>> = { admin: 'admin', member: 'member', viewer: 'viewer' };

/**
 * What the declaration says a caller gets: the operation runs (any answer past the access check),
 * 403 (a team's member with too low a role; a key where a signed-in person is needed) or 404 (a team
 * the credential does not act for answers like one that does not exist).
 */
function expected(operation: TeamOperation, who: Who): 'runs' | 403 | 404 {
  // The call removes another member (the admin): that is an admin's; one's own membership is anyone's (the journey leaves).
  const needed = operation === 'teams.removeMember' ? 'admin' : TEAM_OPERATION_ROLES[operation];
  const access = OPERATION_ACCESS[operation];
  if (who === 'team key' || who === "member's personal key") {
    if (access === 'session') return 403;
    // A team's key is its team's member; a personal key acts for no team.
    return who === 'team key' ? (roleAtLeast('member', needed) ? 'runs' : 403) : 404;
  }
  const role = ROLES[who];
  if (!role) return 404;
  return roleAtLeast(role, needed) ? 'runs' : 403;
}

/**
 * The access table over every team operation and every kind of caller, over REST: the expectations
 * come from the declaration (operation-access.ts), so a route that disagrees with it fails here.
 */
describe('Team access table', () => {
  let t: TestApp;
  let teamId: string;
  let recordId: string;
  let adminRow: string;
  const credentials = {} as Record<Who, { token?: string; apiKey?: string }>;
  let serial = 0;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    const [admin, member, viewer, outsider, removed] = await Promise.all(
      ['admin', 'member', 'viewer', 'outsider', 'removed'].map((name) => t.signIn(`${name}@access.example`)),
    );
    teamId = (await t.request('POST', '/api/v1/teams', { token: admin, body: { name: 'Access Co' } })).body.id;
    for (const [token, email, role] of [
      [member, 'member@access.example', 'member'],
      [viewer, 'viewer@access.example', 'viewer'],
      [removed, 'removed@access.example', 'member'],
    ] as const) {
      const before = t.smtp.messages.length;
      await t.request('POST', `/api/v1/teams/${teamId}/invitations`, { token: admin!, body: { email, role } });
      const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before && m.subject.startsWith('You are invited'));
      const link = /(rss_tinv_[A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
      expect((await t.request('POST', `/api/v1/team-invitations/${link}/accept`, { token: token! })).status).toBe(200);
    }
    const members = (await t.request('GET', `/api/v1/teams/${teamId}/members`, { token: admin })).body.members as { id: string; email: string }[];
    adminRow = members.find((m) => m.email === 'admin@access.example')!.id;
    const removedRow = members.find((m) => m.email === 'removed@access.example')!.id;
    expect((await t.request('DELETE', `/api/v1/teams/${teamId}/members/${removedRow}`, { token: admin })).status).toBe(204);
    recordId = (await t.request('POST', '/api/v1/agreements', { token: member, body: agreementBody({ team_id: teamId }) })).body.id;
    const teamKey = (await t.request('POST', `/api/v1/teams/${teamId}/api-keys`, { token: admin, body: { scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] } })).body.key;
    const personalKey = (await t.request('POST', '/api/v1/api-keys', { token: member, body: { scopes: ['create', 'retrieve', 'verify', 'amend', 'cancel'] } })).body.key;
    Object.assign(credentials, {
      admin: { token: admin },
      member: { token: member },
      viewer: { token: viewer },
      outsider: { token: outsider },
      'removed member': { token: removed },
      'team key': { apiKey: teamKey },
      "member's personal key": { apiKey: personalKey },
    });
  }, 60_000);
  afterAll(async () => t?.stop());

  /** Something of the team's for a call to act on, made fresh by its admin (a template: the team's, reached by its id). */
  const fresh = {
    invitation: async () =>
      (await t.request('POST', `/api/v1/teams/${teamId}/invitations`, { ...credentials.admin, body: { email: `guest${(serial += 1)}@access.example`, role: 'viewer' } })).body.id as string,
    apiKey: async () => (await t.request('POST', `/api/v1/teams/${teamId}/api-keys`, { ...credentials.admin, body: { scopes: ['retrieve'] } })).body.id as string,
    template: async () =>
      (await t.request('POST', '/api/v1/templates', { ...credentials.admin, body: { name: `T${(serial += 1)}`, body: 'We agree to the terms set out here today.', team_id: teamId } })).body.id as string,
    bulkSend: async () => (await t.request('POST', `/api/v1/templates/${await fresh.template()}/bulk`, { ...credentials.admin, body: { rows: [{ values: {}, parties: [] }] } })).body.id as string,
    // A team's export (jobs are off here: it stays queued).
    export: async () => (await t.request('POST', '/api/v1/exports', { ...credentials.admin, body: { team_id: teamId } })).body.id as string,
  };

  /** Each operation as a REST call; destructive ones aim where the rules stop them after the access check. */
  const CALLS: Record<TeamOperation, (who: Who) => Promise<[string, string, unknown?]>> = {
    'teams.get': async () => ['GET', `/api/v1/teams/${teamId}`],
    'teams.members': async () => ['GET', `/api/v1/teams/${teamId}/members`],
    'teams.activity': async () => ['GET', `/api/v1/teams/${teamId}/activity`],
    // The last admin cannot go (409): past the access check, nothing lost.
    'teams.removeMember': async () => ['DELETE', `/api/v1/teams/${teamId}/members/${adminRow}`],
    'records.list': async () => ['GET', `/api/v1/teams/${teamId}/agreements`],
    'records.get': async () => ['GET', `/api/v1/agreements/${recordId}`],
    'artifacts.getAuditTrail': async () => ['GET', `/api/v1/agreements/${recordId}/audit-trail`],
    // Not sealed yet: 409 once past the access check.
    'artifacts.getDocument': async () => ['GET', `/api/v1/agreements/${recordId}/document`],
    'records.createAgreement': async () => ['POST', '/api/v1/agreements', agreementBody({ team_id: teamId })],
    'records.createDeclaration': async () => ['POST', '/api/v1/declarations', { ...agreementBody(), parties: undefined, team_id: teamId }],
    // auto_seal is for keys only (a signed-in person's would be refused for that alone).
    'notarizations.create': async (who) => [
      'POST',
      '/api/v1/notarizations',
      { content_type: 'hash', content_hash: 'a'.repeat(64), label: 'access', signature_mode: credentials[who].apiKey ? 'auto_seal' : 'pending_signature', team_id: teamId },
    ],
    'teams.update': async () => ['PATCH', `/api/v1/teams/${teamId}`, { name: 'Access Co' }],
    // The team owns records: 409 once past the access check.
    'teams.delete': async () => ['DELETE', `/api/v1/teams/${teamId}`],
    'teams.updateMember': async () => ['PATCH', `/api/v1/teams/${teamId}/members/${adminRow}`, { role: 'admin' }],
    'teams.invite': async () => ['POST', `/api/v1/teams/${teamId}/invitations`, { email: `invitee${(serial += 1)}@access.example`, role: 'viewer' }],
    'teams.invitations': async () => ['GET', `/api/v1/teams/${teamId}/invitations`],
    'teams.revokeInvitation': async () => ['DELETE', `/api/v1/teams/${teamId}/invitations/${await fresh.invitation()}`],
    'teams.listApiKeys': async () => ['GET', `/api/v1/teams/${teamId}/api-keys`],
    'teams.createApiKey': async () => ['POST', `/api/v1/teams/${teamId}/api-keys`, { scopes: ['retrieve'] }],
    'teams.revokeApiKey': async () => ['DELETE', `/api/v1/teams/${teamId}/api-keys/${await fresh.apiKey()}`],
    'teams.listWebhooks': async () => ['GET', `/api/v1/teams/${teamId}/webhooks`],
    'templates.list': async () => ['GET', `/api/v1/templates?team_id=${teamId}`],
    'templates.get': async () => ['GET', `/api/v1/templates/${await fresh.template()}`],
    'templates.create': async () => ['POST', '/api/v1/templates', { name: 'New', body: 'We agree to the terms set out here today.', team_id: teamId }],
    'templates.update': async () => ['PATCH', `/api/v1/templates/${await fresh.template()}`, { name: 'Renamed' }],
    'templates.delete': async () => ['DELETE', `/api/v1/templates/${await fresh.template()}`],
    'bulkSends.start': async () => ['POST', `/api/v1/templates/${await fresh.template()}/bulk`, { rows: [{ values: {}, parties: [] }] }],
    'bulkSends.get': async () => ['GET', `/api/v1/bulk-sends/${await fresh.bulkSend()}`],
    'bulkSends.list': async () => ['GET', `/api/v1/bulk-sends?team_id=${teamId}`],
    'exports.create': async () => ['POST', '/api/v1/exports', { team_id: teamId }],
    'exports.list': async () => ['GET', `/api/v1/exports?team_id=${teamId}`],
    'exports.get': async () => ['GET', `/api/v1/exports/${await fresh.export()}`],
    // Not ready (no job runs here): 409 once past the access check.
    'exports.issueDownload': async () => ['POST', `/api/v1/exports/${await fresh.export()}/download-links`],
    'teams.createWebhook': async () => ['POST', `/api/v1/teams/${teamId}/webhooks`, { url: `http://127.0.0.1:9/hook${(serial += 1)}`, events: ['record.sealed'] }],
  };

  const cases = (Object.keys(TEAM_OPERATION_ROLES) as TeamOperation[]).flatMap((operation) => PRINCIPALS.map((who) => [operation, who, expected(operation, who)] as const));

  it.each(cases)('%s by the %s: %s', async (operation, who, outcome) => {
    const [method, path, body] = await CALLS[operation](who);
    const answer = await t.request(method, path, { ...credentials[who], body });
    // A 404 refuses access when it says the team or record is not found (another 404, "not sealed yet", ran).
    const refused = [401, 403].includes(answer.status) || (answer.status === 404 && /^(Team|Record) not found/.test(String(answer.body?.detail)));
    const got = outcome === 'runs' && !refused ? 'runs' : answer.status;
    expect({ operation, who, got, body: got === outcome ? null : answer.body }).toEqual({ operation, who, got: outcome, body: null });
  });
});
