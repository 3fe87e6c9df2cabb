/** Teams: members, invitations, activity, and the team's records, keys and webhooks; and their schemas. */
import { catalog } from '../../graph/catalog/index.js';
import type { CreateApiKeyInput, CreateWebhookInput, InviteTeamMemberInput, UpdateTeamMemberInput } from '../../graph/catalog/generated.js';
import { TEAM_ROLES } from '../../domain/vocabulary.js';
import { MAX_LIST_OFFSET } from '../../domain/records/record-service.js';
import { ACTIVITY_PAGE_MAX, INVITATION_TTL_DAYS, MEMBERS_PER_TEAM, MEMBERSHIPS_MAX, PENDING_INVITATIONS_PER_TEAM, TEAM_NAME_MAX } from '../../domain/teams/team-service.js';
import { TEAM_ACTIVITY_ACTIONS } from '../../domain/teams/team-activity.js';
import { arrayOf, dateTime, enumOf, freeObject, int, nullable, obj, ref, str, uuid, type JsonObject, type Schema } from '../openapi/helpers.js';
import { API, body, json, queryParam } from '../openapi/operation.js';
import { bind, route, type RestRoute } from '../operation.js';
import { param } from './params.js';
import { agreementsPage, listingParams, listingQuery } from './record-contract.js';

const { teams, records } = catalog;
const team = param('team_id');
const token = param('token');

const pathParam = (name: string, description: string, schema: JsonObject = { type: 'string', format: 'uuid' }): JsonObject => ({ name, in: 'path', required: true, description, schema });
const teamId = () => pathParam('team_id', 'Team identifier.');
const memberId = () => pathParam('member_id', 'Membership identifier (from the members list).');
const invitationId = () => pathParam('invitation_id', 'Invitation identifier.');
const keyId = () => pathParam('key_id', 'API key identifier.');
const invitationToken = () => pathParam('token', "The token of the invitation's mailed link.", { type: 'string', minLength: 10, maxLength: 128 });

export const TEAMS_TAG: [string, string] = [
  'Teams',
  "Organizations: records, API keys and webhooks that belong to a team, members with roles (admin, member, viewer), mailed invitations and a hash-chained activity log. Managed with a signed-in person's bearer token; a team the caller is not in answers 404, like one that does not exist.",
];

export function teamRoutes(): RestRoute[] {
  const tags = [TEAMS_TAG[0]];
  return [
    route('get', `${API}/teams`, {
      tags,
      id: 'listTeams',
      summary: 'List my teams',
      description: "The teams the caller's credential acts for, with the caller's role in each: a session's every team, a team key's own team, a personal key's none.",
      ok: json('TeamListResponse', 200, 'The teams.'),
      errors: [401, 403, 429],
      runs: bind(teams.list, { input: () => ({}), body: (list) => ({ teams: list }) }),
    }),
    route('post', `${API}/teams`, {
      tags,
      id: 'createTeam',
      summary: 'Create a team',
      description: 'The caller becomes its first admin.',
      body: body('CreateTeamRequest'),
      ok: json('TeamSchema', 201, 'The team.'),
      errors: [401, 403, 409, 429],
      runs: bind(teams.create, { input: ({ input }) => ({ input: { name: input.name as string } }) }),
    }),
    route('get', `${API}/teams/{team_id}`, {
      tags,
      id: 'getTeam',
      summary: 'Get a team',
      params: [teamId()],
      ok: json('TeamSchema', 200, 'The team.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.get, { issueLocation: 'path', input: (r) => ({ id: team(r) }) }),
    }),
    route('patch', `${API}/teams/{team_id}`, {
      tags,
      id: 'updateTeam',
      summary: 'Rename a team',
      description: 'Admins only.',
      params: [teamId()],
      body: body('UpdateTeamRequest'),
      ok: json('TeamSchema', 200, 'The team.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.update, { input: (r) => ({ id: team(r), input: { name: (r.input.name as string | undefined) ?? null } }) }),
    }),
    route('delete', `${API}/teams/{team_id}`, {
      tags,
      id: 'deleteTeam',
      summary: 'Delete a team',
      description: 'Admins only. A team that owns records cannot be deleted (409): records are never lost. Its keys are revoked and its webhooks deleted.',
      params: [teamId()],
      ok: { status: 204, description: 'Deleted.' },
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.delete, { issueLocation: 'path', input: (r) => ({ id: team(r) }) }),
    }),
    route('get', `${API}/teams/{team_id}/members`, {
      tags,
      id: 'listTeamMembers',
      summary: 'List members',
      params: [teamId()],
      ok: json('TeamMemberListResponse', 200, 'The members.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.members, { issueLocation: 'path', input: (r) => ({ teamId: team(r) }), body: (members) => ({ members }) }),
    }),
    route('patch', `${API}/teams/{team_id}/members/{member_id}`, {
      tags,
      id: 'updateTeamMember',
      summary: "Change a member's role",
      description: 'Admins only. A team always keeps one admin (409).',
      params: [teamId(), memberId()],
      body: body('UpdateTeamMemberRequest'),
      ok: json('TeamMemberSchema', 200, 'The member.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.updateMember, { input: (r) => ({ teamId: team(r), memberId: param('member_id')(r), input: r.input as UpdateTeamMemberInput }) }),
    }),
    route('delete', `${API}/teams/{team_id}/members/{member_id}`, {
      tags,
      id: 'removeTeamMember',
      summary: 'Remove a member, or leave',
      description:
        "An admin removes anyone; a member removes themselves (leaves). Access to the team's records ends at once, on every instance (requests, subscriptions, MCP sessions); " +
        'the team keeps every record they initiated for it, and their own records and signatures are untouched. A team always keeps one admin (409).',
      params: [teamId(), memberId()],
      ok: { status: 204, description: 'Removed.' },
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.removeMember, { issueLocation: 'path', input: (r) => ({ teamId: team(r), memberId: param('member_id')(r) }) }),
    }),
    route('get', `${API}/teams/{team_id}/invitations`, {
      tags,
      id: 'listTeamInvitations',
      summary: 'List pending invitations',
      description: 'Admins only.',
      params: [teamId()],
      ok: json('TeamInvitationListResponse', 200, 'The pending invitations.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.invitations, { issueLocation: 'path', input: (r) => ({ teamId: team(r) }), body: (invitations) => ({ invitations }) }),
    }),
    route('post', `${API}/teams/{team_id}/invitations`, {
      tags,
      id: 'inviteTeamMember',
      summary: 'Invite someone',
      description: `Admins only. Mails the address a link \`PUBLIC_BASE_URL/teams/invitations/<token>\`; the person signed in with that address accepts it. Single use; expires after ${INVITATION_TTL_DAYS} days; a new invitation to the same address replaces the pending one.`,
      params: [teamId()],
      body: body('InviteTeamMemberRequest'),
      ok: json('TeamInvitationSchema', 201, 'The invitation (never its token: only the mail carries it).'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.invite, { input: (r) => ({ teamId: team(r), input: r.input as InviteTeamMemberInput }) }),
    }),
    route('delete', `${API}/teams/{team_id}/invitations/{invitation_id}`, {
      tags,
      id: 'revokeTeamInvitation',
      summary: 'Revoke an invitation',
      description: 'Admins only. Its link stops working.',
      params: [teamId(), invitationId()],
      ok: { status: 204, description: 'Revoked.' },
      errors: [401, 403, 404, 429],
      runs: bind(teams.revokeInvitation, { issueLocation: 'path', input: (r) => ({ teamId: team(r), invitationId: param('invitation_id')(r) }) }),
    }),
    route('get', `${API}/team-invitations/{token}`, {
      id: 'previewTeamInvitation',
      summary: 'Read an invitation',
      tags,
      description: "What the mailed link offers: the team's name, the role and the invited address. The token is the proof; nothing else of the team is shown.",
      params: [invitationToken()],
      ok: json('TeamInvitationPreviewSchema', 200, 'The invitation.'),
      errors: [404, 429],
      runs: bind(teams.previewInvitation, { issueLocation: 'path', secret: true, input: (r) => ({ token: token(r) }) }),
    }),
    route('post', `${API}/team-invitations/{token}/accept`, {
      tags,
      id: 'acceptTeamInvitation',
      summary: 'Accept an invitation',
      description: 'Signed in with the invited address (403 otherwise). 409 when it was already used, declined, revoked, or has expired.',
      params: [invitationToken()],
      ok: json('TeamSchema', 200, 'The team joined.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.acceptInvitation, { issueLocation: 'path', input: (r) => ({ token: token(r) }) }),
    }),
    route('post', `${API}/team-invitations/{token}/decline`, {
      tags,
      id: 'declineTeamInvitation',
      summary: 'Decline an invitation',
      description: 'Signed in with the invited address.',
      params: [invitationToken()],
      ok: { status: 204, description: 'Declined.' },
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.declineInvitation, { issueLocation: 'path', input: (r) => ({ token: token(r) }) }),
    }),
    route('get', `${API}/teams/{team_id}/activity`, {
      tags,
      id: 'listTeamActivity',
      summary: "The team's activity log",
      description:
        "Every change to who belongs to the team and what acts for it, oldest first. Entries are hash-chained like a record's audit trail: `entry_hash` commits to the entry and to `prev_hash`.",
      params: [
        teamId(),
        queryParam('limit', int({ minimum: 1, maximum: ACTIVITY_PAGE_MAX, default: 50 }), `Page size, 1 to ${ACTIVITY_PAGE_MAX}.`),
        queryParam('offset', int({ minimum: 0, maximum: MAX_LIST_OFFSET, default: 0 }), 'Entries to skip.'),
      ],
      ok: json('TeamActivityResponse', 200, 'A page of entries.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.activity, {
        issueLocation: 'query',
        input: (r) => ({ teamId: team(r), limit: (r.query.limit as number | undefined) ?? 50, offset: (r.query.offset as number | undefined) ?? 0 }),
        body: (page) => ({ total: page.total, entries: page.entries.map((entry) => ({ ...entry, details: JSON.parse(entry.details) as unknown })) }),
      }),
    }),
    route('get', `${API}/teams/{team_id}/agreements`, {
      id: 'listTeamAgreements',
      summary: "List the team's records",
      tags,
      description: "The team's records (every role reads them), newest first, with the listing's filters. A team's API key reads its own team's.",
      params: [teamId(), ...listingParams()],
      ok: json('IdentityAgreementsResponse', 200, 'A page of records.'),
      errors: [401, 403, 404, 429],
      runs: bind(records.list, { issueLocation: 'query', input: (r) => ({ teamId: team(r), ...listingQuery(r) }), body: agreementsPage }),
    }),
    route('get', `${API}/teams/{team_id}/api-keys`, {
      tags,
      id: 'listTeamApiKeys',
      summary: "List the team's API keys",
      description: 'Admins only.',
      params: [teamId()],
      ok: json('APIKeyListResponse', 200, 'The keys.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.listApiKeys, { issueLocation: 'path', input: (r) => ({ teamId: team(r) }), body: (apiKeys) => ({ apiKeys }) }),
    }),
    route('post', `${API}/teams/{team_id}/api-keys`, {
      tags,
      id: 'createTeamApiKey',
      summary: 'Create a team API key',
      description:
        "Admins only. The key acts for the team: records it creates belong to the team and it reads the team's records; it survives the departure of whoever made it. " +
        'A team never signs: the key may create notarizations sealed by the key (`auto_seal`), not records whose initiator must sign. The full key is returned once.',
      params: [teamId()],
      body: body('CreateAPIKeyRequest'),
      ok: json('APIKeyCreatedSchema', 201, 'The new key, including the full key.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.createApiKey, {
        secret: true,
        input: (r) => ({ teamId: team(r), input: r.input as CreateApiKeyInput }),
        body: ({ apiKey, key }) => ({ ...apiKey, key }),
      }),
    }),
    route('delete', `${API}/teams/{team_id}/api-keys/{key_id}`, {
      tags,
      id: 'revokeTeamApiKey',
      summary: 'Revoke a team API key',
      description: 'Admins only. Takes effect at once.',
      params: [teamId(), keyId()],
      ok: { status: 204, description: 'Revoked.' },
      errors: [401, 403, 404, 429],
      runs: bind(teams.revokeApiKey, { issueLocation: 'path', input: (r) => ({ teamId: team(r), id: param('key_id')(r) }) }),
    }),
    route('get', `${API}/teams/{team_id}/webhooks`, {
      tags,
      id: 'listTeamWebhooks',
      summary: "List the team's webhook endpoints",
      description: 'Admins only. Each is managed with the webhook routes (`/webhooks/{webhook_id}`) by any admin of the team.',
      params: [teamId()],
      ok: json('WebhookListResponse', 200, 'The endpoints.'),
      errors: [401, 403, 404, 429],
      runs: bind(teams.listWebhooks, { issueLocation: 'path', input: (r) => ({ teamId: team(r) }), body: (webhooks) => ({ webhooks }) }),
    }),
    route('post', `${API}/teams/{team_id}/webhooks`, {
      tags,
      id: 'createTeamWebhook',
      summary: 'Register a team webhook endpoint',
      description: "Admins only. It receives the events of the team's records (Standard Webhooks, as every endpoint). The signing `secret` is returned once.",
      params: [teamId()],
      body: body('CreateWebhookRequest'),
      ok: json('WebhookCreatedResponse', 201, 'The endpoint and its secret.'),
      errors: [401, 403, 404, 409, 429],
      runs: bind(teams.createWebhook, {
        secret: true,
        input: (r) => ({ teamId: team(r), input: r.input as CreateWebhookInput }),
        body: ({ webhook, secret }) => ({ ...webhook, secret }),
      }),
    }),
  ];
}

export function teamSchemas(): Record<string, Schema> {
  const role = enumOf(TEAM_ROLES, { description: 'admin: manages the team and acts on every team record as its initiator may (never signing); member: creates and runs records; viewer: reads them.' });
  const name = str({ minLength: 1, maxLength: TEAM_NAME_MAX });
  return {
    TeamSchema: obj({ id: uuid(), name, role: { ...role, description: "The caller's role in it." }, member_count: int({ minimum: 0 }), created_at: dateTime(), updated_at: dateTime() }, 'all', {
      description: 'A team, as one of its members sees it.',
    }),
    TeamListResponse: obj({ teams: arrayOf(ref('TeamSchema'), { maxItems: MEMBERSHIPS_MAX }) }, 'all'),
    CreateTeamRequest: obj({ name }, ['name']),
    UpdateTeamRequest: obj({ name }, []),
    TeamMemberSchema: obj({ id: uuid(), identity_id: uuid(), email: nullable(str({ description: 'The address they joined with.' })), role, joined_at: dateTime() }, 'all'),
    TeamMemberListResponse: obj({ members: arrayOf(ref('TeamMemberSchema'), { maxItems: MEMBERS_PER_TEAM }) }, 'all'),
    UpdateTeamMemberRequest: obj({ role }, ['role']),
    TeamInvitationSchema: obj(
      { id: uuid(), team_id: uuid(), email: str(), role, status: enumOf(['pending', 'accepted', 'declined', 'revoked']), expires_at: dateTime(), created_at: dateTime() },
      'all',
    ),
    TeamInvitationListResponse: obj({ invitations: arrayOf(ref('TeamInvitationSchema'), { maxItems: PENDING_INVITATIONS_PER_TEAM }) }, 'all'),
    InviteTeamMemberRequest: obj({ email: str({ format: 'email', maxLength: 320 }), role }, ['email', 'role']),
    TeamInvitationPreviewSchema: obj(
      {
        team_name: str(),
        role,
        email: str({ description: 'Sign in with this address to accept.' }),
        expires_at: dateTime(),
        status: enumOf(['pending', 'accepted', 'declined', 'revoked', 'expired']),
      },
      'all',
    ),
    TeamActivityEntrySchema: obj(
      {
        seq: int({ minimum: 1 }),
        at: dateTime(),
        actor_identity_id: nullable(uuid()),
        action: enumOf(TEAM_ACTIVITY_ACTIONS),
        details: freeObject({ description: 'Facts of the change: ids, roles, an invited address, a URL; never a secret.' }),
        prev_hash: nullable(str()),
        entry_hash: str(),
      },
      'all',
    ),
    TeamActivityResponse: obj({ entries: arrayOf(ref('TeamActivityEntrySchema'), { maxItems: ACTIVITY_PAGE_MAX }), total: int({ minimum: 0 }) }, 'all'),
  };
}
