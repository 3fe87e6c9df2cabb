import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Identity } from '../identity/entities.js';
import { isValidEmail, normalizeEmail } from '../identity/contact-points.js';
import { requireAccess } from '../identity/operation-access.js';
import type { Principal } from '../identity/principal.js';
import type { Mailer } from '../mail/mailer.js';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { optionalLine } from '../shared/unicode.js';
import { TEAM_ROLES, type TeamRole } from '../vocabulary.js';
import { Team, TeamInvitation, TeamMember, type InvitationStatus } from './entities.js';
import { appendTeamActivity, type TeamActivityView } from './team-activity.js';
import { readerOf, readerTeams, requireTeamRole } from './team-access.js';

export const TEAM_NAME_MAX = 100;
/** Teams one person may create. */
const TEAMS_PER_CREATOR = 20;
/** Pending invitations one team may have at once. */
export const PENDING_INVITATIONS_PER_TEAM = 100;
export const INVITATION_TTL_DAYS = 7;
export const ACTIVITY_PAGE_MAX = 100;
/** An invitation's token: what the mailed link carries; only its hash is kept. */
const INVITATION_TOKEN_PREFIX = 'rss_tinv_';
/** People one team may have. */
export const MEMBERS_PER_TEAM = 500;
/** Teams one person may belong to. */
export const MEMBERSHIPS_MAX = 100;

export type TeamView = { id: string; name: string; role: TeamRole; memberCount: number; createdAt: Date; updatedAt: Date };
export type TeamMemberView = { id: string; identityId: string; email: string | null; role: TeamRole; joinedAt: Date };
export type TeamInvitationView = { id: string; teamId: string; email: string; role: TeamRole; status: InvitationStatus; expiresAt: Date; createdAt: Date };
/** What the invited person sees before accepting: the team's name and the role offered, nothing else of it. */
export type InvitationPreview = { teamName: string; role: TeamRole; email: string; expiresAt: Date; status: InvitationStatus | 'expired' };

export type TeamSettings = { publicBaseUrl: string };

/**
 * Teams: created by a signed-in person (its first admin), joined by invitation (mailed, single use,
 * expiring), left or removed at once. Every change is logged in the team's hash-chained activity.
 * Who may do what is declared once: the operation's access in operation-access.ts and the role it
 * needs in team-access.ts; a team the caller is not in answers like one that does not exist.
 */
export class TeamService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      mailer: Mailer;
      settings: TeamSettings;
      /** Tells every instance that team access changed: live subscriptions check their readers again. */
      accessChanged: () => Promise<void>;
      /** Tells every instance that credentials were revoked (a deleted team's keys): reused principals are dropped. */
      credentialsChanged: () => Promise<void>;
    },
  ) {}

  private get em(): EntityManager {
    return this.deps.orm.em.fork();
  }

  async list(principal: Principal | null): Promise<TeamView[]> {
    const caller = requireAccess(principal, 'teams.list');
    const em = this.em;
    const roles = await readerTeams(em, readerOf(caller));
    if (roles.size === 0) return [];
    const teams = await em.find(Team, { id: { $in: [...roles.keys()] } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    const counts = await this.memberCounts(em, teams.map((t) => t.id));
    return teams.map((team) => view(team, roles.get(team.id)!, counts.get(team.id) ?? 0));
  }

  async get(principal: Principal | null, teamId: string): Promise<TeamView> {
    const caller = requireAccess(principal, 'teams.get');
    const em = this.em;
    const role = await requireTeamRole(em, caller, teamId, 'teams.get');
    const team = await em.findOneOrFail(Team, { id: teamId.toLowerCase() });
    return view(team, role, (await this.memberCounts(em, [team.id])).get(team.id) ?? 0);
  }

  async create(principal: Principal | null, input: { name: string }): Promise<TeamView> {
    const caller = requireAccess(principal, 'teams.create');
    const name = checkName(input.name);
    const now = this.deps.clock.now();
    const team = await this.em.transactional(async (em) => {
      await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`teams:${caller.identityId}`]);
      if ((await em.count(Team, { createdBy: caller.identityId })) >= TEAMS_PER_CREATOR) {
        throw new DomainError('conflict', `A person can create at most ${TEAMS_PER_CREATOR} teams`);
      }
      // The team's own identity: its keys and webhooks belong to it, and it is a member of itself.
      const identity = em.create(Identity, { createdAt: now });
      const created = em.create(Team, { id: identity.id, name, createdBy: caller.identityId, createdAt: now, updatedAt: now });
      em.create(TeamMember, { team: created.id, identity: caller.identityId, role: 'admin', email: await this.emailOf(em, caller.identityId), createdAt: now });
      em.create(TeamMember, { team: created.id, identity: created.id, role: 'member', email: null, createdAt: now });
      await em.flush();
      await appendTeamActivity(em, created.id, caller.identityId, 'team_created', { name }, now);
      return created;
    });
    return view(team, 'admin', 1);
  }

  async update(principal: Principal | null, teamId: string, input: { name?: string | null }): Promise<TeamView> {
    const caller = requireAccess(principal, 'teams.update');
    return this.em.transactional(async (em) => {
      await requireTeamRole(em, caller, teamId, 'teams.update');
      const team = await em.findOneOrFail(Team, { id: teamId.toLowerCase() });
      if (input.name != null) {
        team.name = checkName(input.name);
        team.updatedAt = this.deps.clock.now();
        await appendTeamActivity(em, team.id, caller.identityId, 'team_renamed', { name: team.name }, team.updatedAt);
      }
      await em.flush();
      return view(team, 'admin', (await this.memberCounts(em, [team.id])).get(team.id) ?? 0);
    });
  }

  /**
   * Deletes a team that owns no record (409 otherwise: records are never lost): its members, pending
   * invitations, keys and webhooks go with it.
   */
  async remove(principal: Principal | null, teamId: string): Promise<void> {
    const caller = requireAccess(principal, 'teams.delete');
    await this.em.transactional(async (em) => {
      await requireTeamRole(em, caller, teamId, 'teams.delete');
      const id = teamId.toLowerCase();
      const [held] = await em.execute<{ count: number }[]>('select count(*)::int as count from records where team_id = ?', [id]);
      if ((held?.count ?? 0) > 0) throw new DomainError('conflict', `This team owns ${held!.count} records; a team that owns records cannot be deleted`);
      await em.execute('update api_keys set revoked_at = ? where identity_id = ? and revoked_at is null', [this.deps.clock.now(), id]);
      await em.execute('delete from webhook_endpoints where identity_id = ?', [id]);
      await em.nativeDelete(Team, { id });
    });
    await this.deps.credentialsChanged();
    await this.deps.accessChanged();
  }

  async members(principal: Principal | null, teamId: string): Promise<TeamMemberView[]> {
    const caller = requireAccess(principal, 'teams.members');
    const em = this.em;
    await requireTeamRole(em, caller, teamId, 'teams.members');
    const id = teamId.toLowerCase();
    // The team's own membership (how its keys act for it) is not a person: not listed.
    const rows = await em.find(TeamMember, { team: id, identity: { $ne: id } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(memberView);
  }

  async updateMember(principal: Principal | null, teamId: string, memberId: string, input: { role: string }): Promise<TeamMemberView> {
    const caller = requireAccess(principal, 'teams.updateMember');
    const role = checkRole(input.role);
    const result = await this.em.transactional(async (em) => {
      await requireTeamRole(em, caller, teamId, 'teams.updateMember');
      const member = await this.lockedMember(em, teamId, memberId);
      if (member.role === role) return memberView(member);
      if (member.role === 'admin' && role !== 'admin') await this.keepAnAdmin(em, member);
      const from = member.role;
      member.role = role;
      await em.flush();
      await appendTeamActivity(em, member.team, caller.identityId, 'member_role_changed', { member_id: member.id, from, to: role }, this.deps.clock.now());
      return memberView(member);
    });
    await this.deps.accessChanged();
    return result;
  }

  /** An admin removes a member; anyone removes themselves (leaves). The team keeps every record. */
  async removeMember(principal: Principal | null, teamId: string, memberId: string): Promise<void> {
    const caller = requireAccess(principal, 'teams.removeMember');
    await this.em.transactional(async (em) => {
      const role = await requireTeamRole(em, caller, teamId, 'teams.removeMember');
      const member = await this.lockedMember(em, teamId, memberId);
      const self = member.identity === caller.identityId;
      if (!self && role !== 'admin') throw new DomainError('forbidden', "Removing another member needs the team's admin role");
      if (member.role === 'admin') await this.keepAnAdmin(em, member);
      await em.nativeDelete(TeamMember, { id: member.id });
      await appendTeamActivity(em, member.team, caller.identityId, self ? 'member_left' : 'member_removed', { member_id: member.id, role: member.role }, this.deps.clock.now());
    });
    // Requests read memberships at once; this ends what is already open (subscriptions) on every instance.
    await this.deps.accessChanged();
  }

  async invite(principal: Principal | null, teamId: string, input: { email: string; role: string }): Promise<TeamInvitationView> {
    const caller = requireAccess(principal, 'teams.invite');
    const issues = new IssueCollector();
    const email = normalizeEmail(input.email ?? '');
    if (!isValidEmail(email)) issues.add(['email'], 'Give a valid email address', 'invalid_email');
    const role = (TEAM_ROLES as readonly string[]).includes(input.role) ? (input.role as TeamRole) : null;
    if (!role) issues.add(['role'], `Role must be one of ${TEAM_ROLES.join(', ')}`, 'invalid_enum');
    issues.throwIfAny();
    const now = this.deps.clock.now();
    const token = INVITATION_TOKEN_PREFIX + randomToken(32);
    return this.em.transactional(async (em) => {
      await requireTeamRole(em, caller, teamId, 'teams.invite');
      const id = teamId.toLowerCase();
      await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`team_invitations:${id}`]);
      const [already] = await em.execute<{ count: number }[]>(
        `select count(*)::int as count from team_members m join contact_points c on c.identity_id = m.identity_id
          where m.team_id = ? and c.type = 'email' and c.value = ?`,
        [id, email],
      );
      if ((already?.count ?? 0) > 0) throw new DomainError('conflict', 'This address already belongs to a member of the team');
      // A new invitation to the same address replaces the pending one (its link stops working).
      await em.nativeUpdate(TeamInvitation, { team: id, email, status: 'pending' }, { status: 'revoked', settledAt: now });
      if ((await em.count(TeamInvitation, { team: id, status: 'pending', expiresAt: { $gt: now } })) >= PENDING_INVITATIONS_PER_TEAM) {
        throw new DomainError('conflict', `A team can have at most ${PENDING_INVITATIONS_PER_TEAM} pending invitations`);
      }
      const team = await em.findOneOrFail(Team, { id });
      const invitation = em.create(TeamInvitation, {
        team: id,
        email,
        role: role!,
        tokenHash: sha256Hex(token),
        invitedBy: caller.identityId,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000),
        createdAt: now,
      });
      await em.flush();
      await appendTeamActivity(em, id, caller.identityId, 'member_invited', { invitation_id: invitation.id, email, role: role! }, now);
      // Written in this transaction: the mail goes out once the invitation exists, and never without it.
      await this.deps.mailer.send(invitationMail(team.name, role!, invitation.expiresAt, `${this.deps.settings.publicBaseUrl}/teams/invitations/${token}`, email), em);
      return invitationView(invitation);
    });
  }

  async invitations(principal: Principal | null, teamId: string): Promise<TeamInvitationView[]> {
    const caller = requireAccess(principal, 'teams.invitations');
    const em = this.em;
    await requireTeamRole(em, caller, teamId, 'teams.invitations');
    const rows = await em.find(TeamInvitation, { team: teamId.toLowerCase(), status: 'pending' }, { orderBy: { createdAt: 'desc', id: 'asc' } });
    return rows.map(invitationView);
  }

  async revokeInvitation(principal: Principal | null, teamId: string, invitationId: string): Promise<void> {
    const caller = requireAccess(principal, 'teams.revokeInvitation');
    await this.em.transactional(async (em) => {
      await requireTeamRole(em, caller, teamId, 'teams.revokeInvitation');
      const invitation = isUuid(invitationId) ? await em.findOne(TeamInvitation, { id: invitationId.toLowerCase(), team: teamId.toLowerCase(), status: 'pending' }) : null;
      if (!invitation) throw DomainError.notFound('Invitation');
      invitation.status = 'revoked';
      invitation.settledAt = this.deps.clock.now();
      await em.flush();
      await appendTeamActivity(em, invitation.team, caller.identityId, 'invitation_revoked', { invitation_id: invitation.id }, invitation.settledAt);
    });
  }

  /** The invitation behind a mailed link, for its holder (the token is the proof): the team's name and the role. */
  async previewInvitation(principal: Principal | null, token: string): Promise<InvitationPreview> {
    // Public ('teams.previewInvitation'): holding the mailed token is the proof.
    void principal;
    const em = this.em;
    const invitation = await this.byToken(em, token);
    const team = await em.findOneOrFail(Team, { id: invitation.team });
    const expired = invitation.status === 'pending' && invitation.expiresAt <= this.deps.clock.now();
    return { teamName: team.name, role: invitation.role, email: invitation.email, expiresAt: invitation.expiresAt, status: expired ? 'expired' : invitation.status };
  }

  /**
   * Joins the team: the signed-in person must have verified the invited address (their sign-in
   * proves it). Single use; an expired, declined or revoked invitation is refused (409).
   */
  async acceptInvitation(principal: Principal | null, token: string): Promise<TeamView> {
    const caller = requireAccess(principal, 'teams.acceptInvitation');
    const teamId = await this.settle(caller, token, 'accepted');
    return this.get(caller, teamId);
  }

  async declineInvitation(principal: Principal | null, token: string): Promise<void> {
    const caller = requireAccess(principal, 'teams.declineInvitation');
    await this.settle(caller, token, 'declined');
  }

  async activity(principal: Principal | null, teamId: string, page: { limit: number; offset: number }): Promise<{ entries: TeamActivityView[]; total: number }> {
    const caller = requireAccess(principal, 'teams.activity');
    const issues = new IssueCollector();
    if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > ACTIVITY_PAGE_MAX) issues.add(['limit'], `Must be from 1 to ${ACTIVITY_PAGE_MAX}`, 'out_of_range');
    if (!Number.isInteger(page.offset) || page.offset < 0) issues.add(['offset'], 'Must be 0 or more', 'out_of_range');
    issues.throwIfAny();
    const em = this.em;
    await requireTeamRole(em, caller, teamId, 'teams.activity');
    const id = teamId.toLowerCase();
    const rows = await em.execute<(Omit<TeamActivityView, 'at'> & { at: Date; total: string })[]>(
      `select seq, at, actor_identity_id as "actorIdentityId", action, details, prev_hash as "prevHash", entry_hash as "entryHash", count(*) over () as total
         from team_activity_entries where team_id = ? order by seq asc limit ? offset ?`,
      [id, page.limit, page.offset],
    );
    const total = rows.length ? Number(rows[0]!.total) : (await em.execute<{ n: string }[]>('select count(*) as n from team_activity_entries where team_id = ?', [id]))[0]!.n;
    return { entries: rows.map(({ total: _total, ...entry }) => ({ ...entry, at: new Date(entry.at) })), total: Number(total) };
  }

  private async settle(caller: Principal, token: string, outcome: 'accepted' | 'declined'): Promise<string> {
    const now = this.deps.clock.now();
    const teamId = await this.em.transactional(async (em) => {
      const found = await this.byToken(em, token);
      const [invitation] = await em.execute<{ id: string }[]>('select id from team_invitations where id = ? for update', [found.id]);
      await em.refresh(found);
      if (!invitation) throw DomainError.notFound('Invitation');
      if (found.status !== 'pending') throw new DomainError('conflict', `This invitation was already ${found.status}`);
      if (found.expiresAt <= now) throw new DomainError('conflict', 'This invitation has expired; ask the team for a new one');
      const [holds] = await em.execute<{ count: number }[]>("select count(*)::int as count from contact_points where identity_id = ? and type = 'email' and value = ?", [
        caller.identityId,
        found.email,
      ]);
      if ((holds?.count ?? 0) === 0) throw new DomainError('forbidden', 'Sign in with the address this invitation was sent to, then accept it');
      found.status = outcome;
      found.settledAt = now;
      if (outcome === 'accepted') {
        const existing = await em.findOne(TeamMember, { team: found.team, identity: caller.identityId });
        if (existing) throw new DomainError('conflict', 'You are already a member of this team');
        await em.execute('select id from teams where id = ? for update', [found.team]);
        const [counts] = await em.execute<{ members: number; memberships: number }[]>(
          'select (select count(*)::int from team_members where team_id = ? and identity_id <> team_id) as members, (select count(*)::int from team_members where identity_id = ?) as memberships',
          [found.team, caller.identityId],
        );
        if ((counts?.members ?? 0) >= MEMBERS_PER_TEAM) throw new DomainError('conflict', `A team can have at most ${MEMBERS_PER_TEAM} members`);
        if ((counts?.memberships ?? 0) >= MEMBERSHIPS_MAX) throw new DomainError('conflict', `A person can belong to at most ${MEMBERSHIPS_MAX} teams; leave one first`);
        const member = em.create(TeamMember, { team: found.team, identity: caller.identityId, role: found.role, email: found.email, createdAt: now });
        await em.flush();
        await appendTeamActivity(em, found.team, caller.identityId, 'member_joined', { member_id: member.id, invitation_id: found.id, role: found.role }, now);
      } else {
        await em.flush();
        await appendTeamActivity(em, found.team, caller.identityId, 'invitation_declined', { invitation_id: found.id }, now);
      }
      return found.team;
    });
    return teamId;
  }

  private async byToken(em: EntityManager, token: string): Promise<TeamInvitation> {
    const invitation = typeof token === 'string' && token.startsWith(INVITATION_TOKEN_PREFIX) ? await em.findOne(TeamInvitation, { tokenHash: sha256Hex(token) }) : null;
    if (!invitation) throw DomainError.notFound('Invitation');
    return invitation;
  }

  private async lockedMember(em: EntityManager, teamId: string, memberId: string): Promise<TeamMember> {
    const id = teamId.toLowerCase();
    // Every change of a team's members holds the team's row: the last admin cannot be removed twice over.
    await em.execute('select id from teams where id = ? for update', [id]);
    const member = isUuid(memberId) ? await em.findOne(TeamMember, { id: memberId.toLowerCase(), team: id, identity: { $ne: id } }) : null;
    if (!member) throw DomainError.notFound('Member');
    return member;
  }

  /** A team always keeps one admin: the last one can neither leave nor be demoted or removed. */
  private async keepAnAdmin(em: EntityManager, leaving: TeamMember): Promise<void> {
    const admins = await em.count(TeamMember, { team: leaving.team, role: 'admin', id: { $ne: leaving.id } });
    if (admins === 0) throw new DomainError('conflict', 'A team keeps at least one admin: make another member admin first');
  }

  private async memberCounts(em: EntityManager, teamIds: readonly string[]): Promise<Map<string, number>> {
    if (teamIds.length === 0) return new Map();
    const rows = await em.execute<{ team: string; n: number }[]>(
      'select team_id as team, count(*)::int as n from team_members where team_id in (?) and identity_id <> team_id group by team_id',
      [teamIds],
    );
    return new Map(rows.map((row) => [row.team, row.n]));
  }

  private async emailOf(em: EntityManager, identityId: string): Promise<string | null> {
    const [row] = await em.execute<{ value: string }[]>("select value from contact_points where identity_id = ? and type = 'email' order by created_at limit 1", [identityId]);
    return row?.value ?? null;
  }
}

function checkName(value: string | null | undefined): string {
  const issues = new IssueCollector();
  const name = optionalLine(issues, value, 'name', TEAM_NAME_MAX);
  if (issues.issues.length === 0 && !name) issues.add(['name'], 'Give the team a name', 'missing');
  issues.throwIfAny();
  return name!;
}

function checkRole(value: string): TeamRole {
  if (!(TEAM_ROLES as readonly string[]).includes(value)) throw DomainError.invalid(['role'], `Role must be one of ${TEAM_ROLES.join(', ')}`, 'invalid_enum');
  return value as TeamRole;
}

function view(team: Team, role: TeamRole, memberCount: number): TeamView {
  return { id: team.id, name: team.name, role, memberCount, createdAt: team.createdAt, updatedAt: team.updatedAt };
}

function memberView(member: TeamMember): TeamMemberView {
  return { id: member.id, identityId: member.identity, email: member.email, role: member.role, joinedAt: member.createdAt };
}

function invitationView(invitation: TeamInvitation): TeamInvitationView {
  const { id, team, email, role, status, expiresAt, createdAt } = invitation;
  return { id, teamId: team, email, role, status, expiresAt, createdAt };
}

function invitationMail(teamName: string, role: TeamRole, expiresAt: Date, link: string, to: string) {
  return {
    to,
    subject: `You are invited to join ${teamName}`,
    text:
      `Hello,\n\nYou are invited to join the team “${teamName}” as ${role === 'admin' ? 'an admin' : `a ${role}`}.\n` +
      `Accept (or decline) here: ${link}\n\n` +
      `Sign in with this email address first. The invitation can be used once and expires on ${expiresAt.toISOString().slice(0, 10)}.\n`,
  };
}
