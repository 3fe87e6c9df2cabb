import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { canonicalBytes, sha256Tagged } from '../shared/canonical-json.js';
import { TeamActivityEntry } from './entities.js';

/** What a team's activity log records: every change to who belongs to it and to what acts for it. */
export const TEAM_ACTIVITY_ACTIONS = [
  'team_created',
  'team_renamed',
  'member_invited',
  'invitation_revoked',
  'invitation_declined',
  'member_joined',
  'member_role_changed',
  'member_removed',
  'member_left',
  'api_key_created',
  'api_key_revoked',
  'webhook_created',
  'webhook_changed',
  'webhook_deleted',
] as const;
export type TeamActivityAction = (typeof TEAM_ACTIVITY_ACTIONS)[number];

export type TeamActivityDetails = Record<string, string | null>;

/** An entry as the API gives it. */
export type TeamActivityView = {
  seq: number;
  at: Date;
  actorIdentityId: string | null;
  action: string;
  details: TeamActivityDetails;
  prevHash: string | null;
  entryHash: string;
};

/** The hash of an entry: RFC 8785 bytes of everything it says, bound to its team. */
function teamActivityHash(teamId: string, entry: Omit<TeamActivityView, 'entryHash' | 'at'> & { at: string }): string {
  return sha256Tagged(
    canonicalBytes({ team_id: teamId, seq: entry.seq, at: entry.at, actor_identity_id: entry.actorIdentityId, action: entry.action, details: entry.details, prev_hash: entry.prevHash }),
  );
}

/**
 * Appends an entry to the team's log in the caller's transaction, chained to the head. The head is
 * read under a transaction-scoped lock of the team's log, so two changes of one team never fork it
 * (the unique (team, seq) constraint would refuse the second).
 */
export async function appendTeamActivity(
  em: EntityManager,
  teamId: string,
  actorIdentityId: string | null,
  action: TeamActivityAction,
  details: TeamActivityDetails,
  at: Date,
): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`team_activity:${teamId}`]);
  const [head] = await em.execute<{ seq: number; entryHash: string }[]>(
    'select seq, entry_hash as "entryHash" from team_activity_entries where team_id = ? order by seq desc limit 1',
    [teamId],
  );
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.entryHash ?? null;
  const entryHash = teamActivityHash(teamId, { seq, at: at.toISOString(), actorIdentityId, action, details, prevHash });
  // Written now (not at the flush): the next append of this transaction reads it as the head.
  await em.insert(TeamActivityEntry, { id: randomUUID(), team: teamId, seq, at, actorIdentityId, action, details, prevHash, entryHash });
}
