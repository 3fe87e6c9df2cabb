import { catalog } from '../../graph/catalog/index.js';
import type { CreateApiKeyInput, CreateWebhookInput, InviteTeamMemberInput, UpdateTeamMemberInput } from '../../graph/catalog/generated.js';
import { bind, type RestOperation } from '../operation.js';
import { param } from './params.js';

const { teams, records } = catalog;
const teamId = param('team_id');
const token = param('token');

/** Teams, members, invitations, activity, and the team's records, keys and webhooks. */
export const teamRoutes: Record<string, RestOperation> = {
  listTeams: bind(teams.list, { input: () => ({}), body: (list) => ({ teams: list }) }),
  createTeam: bind(teams.create, { status: 201, input: ({ input }) => ({ input: { name: input.name as string } }) }),
  getTeam: bind(teams.get, { issueLocation: 'path', input: (r) => ({ id: teamId(r) }) }),
  updateTeam: bind(teams.update, { input: (r) => ({ id: teamId(r), input: { name: (r.input.name as string | undefined) ?? null } }) }),
  deleteTeam: bind(teams.delete, { status: 204, issueLocation: 'path', input: (r) => ({ id: teamId(r) }) }),
  listTeamMembers: bind(teams.members, { issueLocation: 'path', input: (r) => ({ teamId: teamId(r) }), body: (members) => ({ members }) }),
  updateTeamMember: bind(teams.updateMember, { input: (r) => ({ teamId: teamId(r), memberId: param('member_id')(r), input: r.input as UpdateTeamMemberInput }) }),
  removeTeamMember: bind(teams.removeMember, { status: 204, issueLocation: 'path', input: (r) => ({ teamId: teamId(r), memberId: param('member_id')(r) }) }),
  listTeamInvitations: bind(teams.invitations, { issueLocation: 'path', input: (r) => ({ teamId: teamId(r) }), body: (invitations) => ({ invitations }) }),
  inviteTeamMember: bind(teams.invite, { status: 201, input: (r) => ({ teamId: teamId(r), input: r.input as InviteTeamMemberInput }) }),
  revokeTeamInvitation: bind(teams.revokeInvitation, { status: 204, issueLocation: 'path', input: (r) => ({ teamId: teamId(r), invitationId: param('invitation_id')(r) }) }),
  previewTeamInvitation: bind(teams.previewInvitation, { issueLocation: 'path', secret: true, input: (r) => ({ token: token(r) }) }),
  acceptTeamInvitation: bind(teams.acceptInvitation, { issueLocation: 'path', input: (r) => ({ token: token(r) }) }),
  declineTeamInvitation: bind(teams.declineInvitation, { status: 204, issueLocation: 'path', input: (r) => ({ token: token(r) }) }),
  listTeamActivity: bind(teams.activity, {
    issueLocation: 'query',
    input: (r) => ({ teamId: teamId(r), limit: (r.query.limit as number | undefined) ?? 50, offset: (r.query.offset as number | undefined) ?? 0 }),
    body: (page) => ({ total: page.total, entries: page.entries.map((entry) => ({ ...entry, details: JSON.parse(entry.details) as unknown })) }),
  }),
  listTeamAgreements: bind(records.list, {
    issueLocation: 'query',
    input: (r) => ({
      teamId: teamId(r),
      status: r.query.status as string | undefined,
      type: r.query.type as string | undefined,
      limit: r.query.limit as number | undefined,
      offset: r.query.offset as number | undefined,
    }),
    body: (page) => ({ agreements: page.records, total: page.total, limit: page.limit, offset: page.offset }),
  }),
  listTeamApiKeys: bind(teams.listApiKeys, { issueLocation: 'path', input: (r) => ({ teamId: teamId(r) }), body: (apiKeys) => ({ apiKeys }) }),
  createTeamApiKey: bind(teams.createApiKey, {
    status: 201,
    secret: true,
    input: (r) => ({ teamId: teamId(r), input: r.input as CreateApiKeyInput }),
    body: ({ apiKey, key }) => ({ ...apiKey, key }),
  }),
  revokeTeamApiKey: bind(teams.revokeApiKey, { status: 204, issueLocation: 'path', input: (r) => ({ teamId: teamId(r), id: param('key_id')(r) }) }),
  listTeamWebhooks: bind(teams.listWebhooks, { issueLocation: 'path', input: (r) => ({ teamId: teamId(r) }), body: (webhooks) => ({ webhooks }) }),
  createTeamWebhook: bind(teams.createWebhook, {
    status: 201,
    secret: true,
    input: (r) => ({ teamId: teamId(r), input: r.input as CreateWebhookInput }),
    body: ({ webhook, secret }) => ({ ...webhook, secret }),
  }),
};
