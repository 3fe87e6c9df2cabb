import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, ConfirmAction } from '../components';
import { NewKeyCard, NewKeyForm } from './key-parts';
import { CreateTeamApiKeyDocument, RevokeTeamApiKeyDocument, TeamApiKeysDocument, type ApiKeyScope } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useReload } from '../lib/reload';

/**
 * The team's API keys (admins): a key acts for the team and outlives whoever made it. It is shown once;
 * it may notarize with auto-seal but never create what its initiator must sign.
 */
export function TeamApiKeys({ teamId, onChanged }: { teamId: string; onChanged: () => void }) {
  const [list, refetch] = useQuery({ query: TeamApiKeysDocument, variables: { teamId } });
  const reload = useReload(list, refetch);
  const [created, create] = useMutation(CreateTeamApiKeyDocument);
  const [revoked, revoke] = useMutation(RevokeTeamApiKeyDocument);
  const [secret, setSecret] = useState<string | null>(null);

  const createKey = async (input: { name?: string; scopes: ApiKeyScope[] }) => {
    const result = await create({ teamId, input });
    if (!result.data) return false;
    setSecret(result.data.createTeamApiKey.key);
    reload();
    onChanged();
    return true;
  };

  const keys = list.data?.teamApiKeys ?? [];
  return (
    <section className="settings-section" aria-labelledby="team-keys-heading">
      <h2 id="team-keys-heading">Team API keys</h2>
      <p className="lead">A team key acts for the team: what it creates belongs to the team, and it reads the team’s records. It keeps working when the person who made it leaves.</p>
      {secret && <NewKeyCard heading={<h3>The new team key</h3>} secret={secret} secretName="team-api-key" onStored={() => setSecret(null)} />}
      <div className="grid-2">
        <div>
          <h3>Active keys</h3>
          <Alert>{describeError(list.error)}</Alert>
          {keys.length === 0 ? (
            <p className="card empty">No active team keys.</p>
          ) : (
            <ul className="member-list card" aria-label="Team API keys">
              {keys.map((key) => (
                <li key={key.id}>
                  <div className="party-head">
                    <strong>{key.name ?? 'Unnamed'}</strong>
                    <span className="mono small">{key.keyPrefix}…</span>
                  </div>
                  <div className="muted small">Scopes: {key.scopes.join(', ')}; created {formatDate(key.createdAt)}; last used {key.lastUsedAt ? formatDate(key.lastUsedAt) : 'never'}</div>
                  <div className="actions">
                    <ConfirmAction label="Revoke" context={key.name ?? key.keyPrefix} danger title="Revoke this team key?" confirmLabel="Revoke key"
                      description={<p>Programs using <span className="mono">{key.keyPrefix}…</span> stop working immediately. This cannot be undone.</p>}
                      error={describeError(revoked.error)}
                      onConfirm={async () => {
                        const result = await revoke({ teamId, id: key.id });
                        if (result.error) return false;
                        reload();
                        onChanged();
                      }} />
                  </div>
                </li>
              ))}
            </ul>
          )}
        </div>
        <NewKeyForm heading={<h3>Create a team key</h3>} nameLabel="Key name" submitLabel="Create team key" busy={created.fetching} error={describeError(created.error)} create={createKey} />
      </div>
    </section>
  );
}
