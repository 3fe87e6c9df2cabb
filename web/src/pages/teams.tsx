import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, Field, PageTitle } from '../components';
import { CreateTeamDocument, TeamsDocument } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { Link, navigate } from '../router';
import { TEAM_ROLE_LABELS, TEAMS_CONTEXT } from '../teams';

const NAME_MAX = 100;

/** The caller's teams, and a form to start one (its creator is its first admin). */
export function TeamsPage() {
  const [list] = useQuery({ query: TeamsDocument, context: TEAMS_CONTEXT });
  const [created, create] = useMutation(CreateTeamDocument);
  const [name, setName] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ input: { name: name.trim() } });
    if (result.data) navigate(`/teams/${result.data.createTeam.id}`);
  };

  const teams = list.data?.teams ?? [];
  return (
    <section>
      <PageTitle title="Teams">Teams</PageTitle>
      <p className="lead">A team’s records, API keys and webhooks belong to the team, not to whoever made them: someone who leaves loses access at once and the team keeps every record.</p>
      <div className="grid-2">
        <div>
          <h2>Your teams</h2>
          <Alert>{describeError(list.error)}</Alert>
          {list.data && teams.length === 0 ? (
            <p className="card empty">You are in no team yet. Create one, or accept an invitation from its mail.</p>
          ) : (
            <ul className="record-list" aria-label="Your teams" aria-busy={list.fetching}>
              {teams.map((team) => (
                <li key={team.id} data-team={team.name}>
                  <div>
                    <Link className="record-title" href={`/teams/${team.id}`}>{team.name}</Link>
                    <div className="record-meta">
                      <span>{team.memberCount === 1 ? '1 member' : `${team.memberCount} members`}</span>
                      <span>Created {formatDate(team.createdAt)}</span>
                    </div>
                  </div>
                  <div className="record-side"><span className="badge">{TEAM_ROLE_LABELS[team.role]}</span></div>
                </li>
              ))}
            </ul>
          )}
        </div>
        <form className="card" onSubmit={(event) => void submit(event)} noValidate>
          <h2>Create a team</h2>
          <Field label="Team name" hint="Shown to the people you invite">
            {(props) => <input {...props} type="text" required maxLength={NAME_MAX} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Alert>{describeError(created.error)}</Alert>
          <button type="submit" className="button primary" disabled={created.fetching || !name.trim()}>Create team</button>
        </form>
      </div>
    </section>
  );
}
