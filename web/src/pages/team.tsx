import { useReducer, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, ConfirmAction, Field, PageTitle } from '../components';
import {
  RemoveTeamMemberDocument,
  RenameTeamDocument,
  TeamDocument,
  UpdateTeamMemberDocument,
  type TeamMemberRowFragment,
  type TeamRole,
  type TeamRowFragment,
} from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useMe } from '../me';
import { Link, navigate } from '../router';
import { selectWorkspace, TEAM_ROLE_HINTS, TEAM_ROLE_LABELS } from '../teams';
import { WebhooksSection } from './webhooks';
import { TeamActivity } from './team-activity';
import { TeamApiKeys } from './team-keys';
import { TeamInvitations } from './team-invitations';

const NAME_MAX = 100;
const TEAM_ROLES = Object.keys(TEAM_ROLE_LABELS) as TeamRole[];

/**
 * One team: its name, members and activity for every member; invitations, keys and webhooks for its
 * admins (the server refuses them to anyone else, so the page does not ask).
 */
export function TeamPage({ id }: { id: string }) {
  const [result, refetch] = useQuery({ query: TeamDocument, variables: { id } });
  // Bumped by every change made here: the activity log reads again and shows it.
  const [changes, changed] = useReducer((n: number) => n + 1, 0);
  const team = result.data?.team;
  if (!team) {
    return (
      <section>
        <PageTitle title="Team">{result.fetching ? 'Loading team…' : 'Team not available'}</PageTitle>
        <Alert>{describeError(result.error)}</Alert>
        <Link href="/teams">Back to your teams</Link>
      </section>
    );
  }
  const onChanged = () => {
    refetch({ requestPolicy: 'network-only' });
    changed();
  };
  const admin = team.role === 'admin';
  return (
    <section>
      <div className="page-head">
        <div>
          <PageTitle title={team.name}>{team.name}</PageTitle>
          <div className="record-meta">
            <span>Your role: {TEAM_ROLE_LABELS[team.role]}</span>
            <span>{team.memberCount === 1 ? '1 member' : `${team.memberCount} members`}</span>
            <span>Created {formatDate(team.createdAt)}</span>
          </div>
        </div>
        <Link className="button secondary" href="/" onClick={() => selectWorkspace(team.id)}>Open the team’s records</Link>
      </div>
      <div className="grid-2">
        <Members team={team} members={result.data?.teamMembers ?? []} onChanged={onChanged} />
        <div>
          {admin && <Rename team={team} onChanged={changed} />}
          {admin && <TeamInvitations teamId={team.id} onChanged={changed} />}
        </div>
      </div>
      {admin && <TeamApiKeys teamId={team.id} onChanged={changed} />}
      {admin && <WebhooksSection teamId={team.id} onChanged={changed} />}
      <TeamActivity teamId={team.id} members={result.data?.teamMembers ?? []} changes={changes} />
    </section>
  );
}

function Rename({ team, onChanged }: { team: TeamRowFragment; onChanged: () => void }) {
  const [name, setName] = useState(team.name);
  const [renamed, rename] = useMutation(RenameTeamDocument);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await rename({ id: team.id, name: name.trim() });
    if (result.data) onChanged();
  };
  return (
    <form className="card" onSubmit={(event) => void submit(event)} noValidate>
      <h2>Name</h2>
      <Field label="Team name">
        {(props) => <input {...props} type="text" required maxLength={NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Alert>{describeError(renamed.error)}</Alert>
      <button type="submit" className="button secondary" disabled={renamed.fetching || !name.trim() || name.trim() === team.name}>Rename team</button>
    </form>
  );
}

function Members({ team, members, onChanged }: { team: TeamRowFragment; members: readonly TeamMemberRowFragment[]; onChanged: () => void }) {
  const me = useMe();
  return (
    <section className="card" aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <ul className="member-list" aria-label="Members">
        {members.map((member) => (
          <MemberItem key={member.id} team={team} member={member} self={member.identityId === me.identityId} onChanged={onChanged} />
        ))}
      </ul>
      <p className="small muted">Roles: {TEAM_ROLES.map((role) => `${TEAM_ROLE_LABELS[role].toLowerCase()} ${TEAM_ROLE_HINTS[role]}`).join('; ')}. A team always keeps one admin.</p>
    </section>
  );
}

function MemberItem({ team, member, self, onChanged }: { team: TeamRowFragment; member: TeamMemberRowFragment; self: boolean; onChanged: () => void }) {
  const [role, setRole] = useState<TeamRole>(member.role);
  const [updated, update] = useMutation(UpdateTeamMemberDocument);
  const [removed, remove] = useMutation(RemoveTeamMemberDocument);
  const admin = team.role === 'admin';
  const name = member.email ?? 'A member';

  const changeRole = async (event: FormEvent) => {
    event.preventDefault();
    const result = await update({ teamId: team.id, memberId: member.id, role });
    if (!result.error) onChanged();
  };
  const removeMember = async () => {
    const result = await remove({ teamId: team.id, memberId: member.id }, { additionalTypenames: ['Team', 'TeamMember'] });
    if (result.error) return false;
    if (self) {
      selectWorkspace(null);
      navigate('/teams');
    } else {
      onChanged();
    }
  };

  return (
    <li data-member={member.email ?? member.id}>
      <div className="party-head">
        <strong>{name}{self ? ' (you)' : ''}</strong>
        <span className="badge">{TEAM_ROLE_LABELS[member.role]}</span>
      </div>
      <div className="muted small">Joined {formatDate(member.joinedAt)}</div>
      <div className="actions">
        {admin && (
          <form className="inline-form" onSubmit={(event) => void changeRole(event)}>
            <select aria-label={`Role of ${name}`} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
              {TEAM_ROLES.map((value) => <option key={value} value={value}>{TEAM_ROLE_LABELS[value]}</option>)}
            </select>
            <button type="submit" className="button secondary small" disabled={updated.fetching || role === member.role}>
              Change role<span className="visually-hidden"> of {name}</span>
            </button>
          </form>
        )}
        {(admin || self) && (
          <ConfirmAction label={self ? 'Leave team' : 'Remove'} context={self ? undefined : name} danger
            title={self ? `Leave ${team.name}?` : `Remove ${name}?`} confirmLabel={self ? 'Leave team' : 'Remove member'}
            description={<p>{self ? 'You' : name} lose{self ? '' : 's'} access to the team’s records, keys and webhooks at once. Records {self ? 'you' : 'they'} made stay with the team.</p>}
            error={describeError(removed.error)}
            onConfirm={removeMember} />
        )}
      </div>
      <Alert>{describeError(updated.error)}</Alert>
    </li>
  );
}
