import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../shared/sql.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import type { Principal } from '../identity/principal.js';
import { TEAM_ROLES, type TeamRole } from '../vocabulary.js';
import { TEAM_OPERATION_ROLES, type TeamOperation } from '../identity/operation-access.js';

/** The roles from the least to the most: each may do what the ones below it may. */
const TEAM_ROLE_RANK: Record<TeamRole, number> = { viewer: 1, member: 2, admin: 3 };

/** Whether `role` is at least `needed`. */
export function roleAtLeast(role: TeamRole | undefined | null, needed: TeamRole): boolean {
  return role != null && TEAM_ROLE_RANK[role] >= TEAM_ROLE_RANK[needed];
}

/**
 * Which of its teams a credential acts for, as one SQL text parameter: `*` every team the identity
 * belongs to (a signed-in session; a team's own key, whose identity belongs to its team only), `''`
 * none (a personal API key, an MCP retrieval grant: they reach the person's own records), or the
 * comma-separated team ids an OAuth connector was allowed at consent.
 */
export function teamScopeOf(principal: Principal): string {
  switch (principal.kind) {
    case 'session':
      return '*';
    case 'api_key':
      return principal.teamKey ? '*' : '';
    case 'oauth':
      return (principal.teams ?? []).join(',');
    case 'mcp_session':
      return '';
  }
}

/** A reader of records: an identity and the teams its credential acts for (`teamScopeOf`). */
export type Reader = { identityId: string; teamScope: string };

export function readerOf(principal: Principal): Reader {
  return { identityId: principal.identityId, teamScope: teamScopeOf(principal) };
}

/** A reader as a cache key: two credentials of one identity that act for different teams read differently. */
export function readerKey(reader: Reader): string {
  return `${reader.identityId}\u0001${reader.teamScope}`;
}

/** The memberships a reader acts with, in SQL. Three `?`: the identity, the scope, the scope. */
export const MEMBERSHIP_IN_SCOPE = `m.identity_id = ? and (? = '*' or m.team_id::text = any(string_to_array(?, ',')))`;

export function membershipParams(reader: Reader): unknown[] {
  return [reader.identityId, reader.teamScope, reader.teamScope];
}

/** The reader's teams and roles as a JSON object (team id: role), in a select list. Three `?` (membershipParams). */
export const TEAMS_OF_READER = `coalesce((select json_object_agg(m.team_id, m.role) from team_members m where ${MEMBERSHIP_IN_SCOPE}), '{}')`;

/** The reader's teams and roles. */
export async function readerTeams(em: EntityManager, reader: Reader): Promise<Map<string, TeamRole>> {
  if (reader.teamScope === '') return new Map();
  const [row] = await preparedQuery<{ teams: Record<string, TeamRole> }>(em, `select ${TEAMS_OF_READER} as teams`, membershipParams(reader));
  return new Map(Object.entries(row?.teams ?? {}));
}

/**
 * The caller's role in a team its credential acts for, when it is at least `needed`. A team the
 * caller is not in (or whose id is malformed, or that its credential does not act for) answers
 * not_found, exactly like a team that does not exist: nobody outside a team learns it exists. A
 * member whose role is too low is told so (403): they know the team.
 */
export async function requireTeamRole(em: EntityManager, principal: Principal, teamId: string, operation: TeamOperation): Promise<TeamRole> {
  const needed: TeamRole = TEAM_OPERATION_ROLES[operation];
  const reader = readerOf(principal);
  const role = isUuid(teamId) ? (await readerTeams(em, reader)).get(teamId.toLowerCase()) : undefined;
  if (!role) throw DomainError.notFound('Team');
  if (!roleAtLeast(role, needed)) throw new DomainError('forbidden', `This needs the team's ${needed} role; yours is ${role}`);
  return role;
}

/**
 * The team a new record belongs to: the one asked for (the caller needs its `member` role), or for a
 * team's key the key's own team; null for a personal record. A team never signs: its key may create
 * notarizations, sealed by the key (`auto_seal`), and nothing whose initiator must sign.
 */
export async function teamOfNewRecord(
  em: EntityManager,
  principal: Principal,
  teamId: string | null | undefined,
  initiatorSigns: boolean,
  operation: TeamOperation,
): Promise<string | null> {
  const team = teamId ?? (principal.kind === 'api_key' && principal.teamKey ? principal.identityId : null);
  if (team === null) return null;
  await requireTeamRole(em, principal, team, operation);
  if (principal.kind === 'api_key' && principal.teamKey && initiatorSigns) {
    throw DomainError.invalid(
      [],
      "A team's key cannot initiate a record its initiator must sign: a team never signs. Create it with a member's session, or notarize with signature_mode 'auto_seal'",
      'team_never_signs',
    );
  }
  return team.toLowerCase();
}

/**
 * The teams page's table (docs/teams.md) of what each role may do, made from the declaration (operation-access.ts
 * TEAM_OPERATION_ROLES); test/unit/team-roles.test.ts fails when the page's copy differs.
 */
export function teamRolesTable(): string {
  const rows = Object.entries(TEAM_OPERATION_ROLES).map(([operation, needed]) => {
    const marks = TEAM_ROLES.slice().reverse().map((role) => (roleAtLeast(role, needed) ? 'yes' : 'no'));
    return `| \`${operation}\` | ${marks.join(' | ')} |`;
  });
  return ['| Operation | viewer | member | admin |', '|---|---|---|---|', ...rows].join('\n');
}
