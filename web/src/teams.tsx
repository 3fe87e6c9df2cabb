import { useCallback, useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { TeamsDocument, type TeamRole, type TeamRowFragment } from './graphql/generated';

/**
 * The workspace the person works in: their own (null) or one of their teams. It is a preference, not a
 * secret, so it lives in localStorage and outlasts the tab; a team the person has left falls back to
 * the personal workspace (the server refuses its records anyway).
 */
const STORAGE_KEY = 'record-signing.workspace';
const listeners = new Set<() => void>();

function stored(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function selectWorkspace(teamId: string | null): void {
  try {
    if (teamId) localStorage.setItem(STORAGE_KEY, teamId);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts until the page reloads.
  }
  remembered = teamId;
  listeners.forEach((notify) => notify());
}

let remembered = stored();

export const TEAM_ROLE_LABELS: Record<TeamRole, string> = { admin: 'Admin', member: 'Member', viewer: 'Viewer' };

/** What each role may do, in the words the role pickers show. */
export const TEAM_ROLE_HINTS: Record<TeamRole, string> = {
  admin: 'manages the team, its members, keys and webhooks',
  member: 'creates and runs the team’s records',
  viewer: 'reads the team’s records',
};

/** Roles that may create records owned by the team. */
export function canCreateFor(role: TeamRole): boolean {
  return role === 'admin' || role === 'member';
}

/**
 * Ties the list to the Team type even while it is empty: the cache then reads it again after any
 * mutation that answers a Team (a created team, an accepted invitation) or names it (leaving one).
 */
export const TEAMS_CONTEXT = { additionalTypenames: ['Team'] };

/** The caller's teams with their role in each (read once, then kept by the cache until a team mutation). */
export function useTeams(pause = false): { teams: readonly TeamRowFragment[]; loaded: boolean } {
  const [result] = useQuery({ query: TeamsDocument, requestPolicy: 'cache-and-network', pause, context: TEAMS_CONTEXT });
  return { teams: result.data?.teams ?? [], loaded: Boolean(result.data) };
}

/** The selected workspace: the team (when the caller still belongs to it) or null for the personal one. */
export function useWorkspace(pause = false): {
  team: TeamRowFragment | null;
  teams: readonly TeamRowFragment[];
  /** False while a remembered team is not yet confirmed by the list (its records are not asked for before). */
  ready: boolean;
  select: (teamId: string | null) => void;
} {
  const { teams, loaded } = useTeams(pause);
  const [teamId, setTeamId] = useState(remembered);
  useEffect(() => {
    const update = () => setTeamId(remembered);
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  const team = teams.find((candidate) => candidate.id === teamId) ?? null;
  useEffect(() => {
    if (loaded && teamId && !team) selectWorkspace(null);
  }, [loaded, teamId, team]);
  const select = useCallback((next: string | null) => selectWorkspace(next), []);
  return { team, teams, ready: !teamId || loaded, select };
}
