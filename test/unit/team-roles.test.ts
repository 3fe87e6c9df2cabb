import { readFileSync } from 'node:fs';
import { TEAM_OPERATION_ROLES } from '../../src/domain/identity/operation-access.js';
import { roleAtLeast, teamRolesTable, teamScopeOf } from '../../src/domain/teams/team-access.js';
import { actsAsInitiator, isInitiatorOf, type Viewer } from '../../src/domain/records/record-view.js';
import { canRead } from '../../src/domain/records/record-access.js';
import type { TeamRole } from '../../src/domain/vocabulary.js';

const TEAM = 'a0000000-0000-4000-8000-000000000001';
const viewer = (identityId: string, role?: TeamRole): Viewer => ({ identityId, teamScope: '*', contactKeys: new Set(), teams: new Map(role ? [[TEAM, role]] : []) });
const teamRecord = { initiatorIdentity: 'maker', teamId: TEAM, participants: [{ role: 'initiator' as const, removedAt: null, identity: 'maker', contactPointType: 'email' as const, contactPointValue: 'maker@acme.example' }] };

describe('Team roles, from the one access declaration', () => {
  it('the teams page shows the table made from the declaration', () => {
    expect(readFileSync(new URL('../../docs/teams.md', import.meta.url), 'utf8')).toContain(teamRolesTable());
  });

  it('ranks admin over member over viewer', () => {
    expect(roleAtLeast('admin', 'member')).toBe(true);
    expect(roleAtLeast('member', 'admin')).toBe(false);
    expect(roleAtLeast('viewer', 'viewer')).toBe(true);
    expect(roleAtLeast(undefined, 'viewer')).toBe(false);
    expect(TEAM_OPERATION_ROLES['teams.invite']).toBe('admin');
  });

  it.each([
    // [who, role, reads, manages as initiator, signs as initiator]
    ['the initiator, a member', 'maker', 'member', true, true, true],
    ['the initiator, demoted to viewer', 'maker', 'viewer', true, false, true],
    ['the initiator, removed from the team', 'maker', undefined, false, false, false],
    ['another member', 'colleague', 'member', true, false, false],
    ['an admin', 'boss', 'admin', true, true, false],
    ['a viewer', 'auditor', 'viewer', true, false, false],
    ['an outsider', 'stranger', undefined, false, false, false],
  ] as const)('on a team record, %s: reads %#', (_who, identity, role, reads, manages, signs) => {
    const reader = viewer(identity, role);
    expect([canRead(teamRecord, reader), actsAsInitiator(teamRecord, reader), isInitiatorOf(teamRecord, reader)]).toEqual([reads, manages, signs]);
  });

  it('a personal record is its initiator\'s alone, whatever their teams', () => {
    const personal = { ...teamRecord, teamId: null };
    expect(actsAsInitiator(personal, viewer('maker'))).toBe(true);
    expect(canRead(personal, viewer('boss', 'admin'))).toBe(false);
  });

  it('which teams each credential acts for', () => {
    expect(teamScopeOf({ kind: 'session', identityId: 'p', scopes: [], tokenId: 't', contactPointId: 'c' })).toBe('*');
    expect(teamScopeOf({ kind: 'api_key', identityId: 'p', scopes: [], apiKeyId: 'k' })).toBe('');
    expect(teamScopeOf({ kind: 'api_key', identityId: TEAM, scopes: [], apiKeyId: 'k', teamKey: true })).toBe('*');
    expect(teamScopeOf({ kind: 'oauth', identityId: 'p', scopes: [], grantId: 'g', clientId: 'c', offlineAccess: false, teams: [TEAM] })).toBe(TEAM);
    expect(teamScopeOf({ kind: 'mcp_session', identityId: 'p', scopes: [], mcpSessionId: 's', grantId: 'g', sessionBound: true })).toBe('');
  });
});
