import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, ConfirmAction, CopyButton, Field } from '../components';
import { CreateTeamApiKeyDocument, RevokeTeamApiKeyDocument, TeamApiKeysDocument, type ApiKeyScope } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { useReload } from '../lib/reload';
import { SCOPES } from './keys';

/**
 * The team's API keys (admins): a key acts for the team and outlives whoever made it. It is shown once;
 * it may notarize with auto-seal but never create what its initiator must sign.
 */
export function TeamApiKeys({ teamId, onChanged }: { teamId: string; onChanged: () => void }) {
  const [list, refetch] = useQuery({ query: TeamApiKeysDocument, variables: { teamId } });
  const reload = useReload(list, refetch);
  const [created, create] = useMutation(CreateTeamApiKeyDocument);
  const [revoked, revoke] = useMutation(RevokeTeamApiKeyDocument);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<ApiKeyScope>>(new Set(['retrieve']));
  const [secret, setSecret] = useState<string | null>(null);

  const toggle = (scope: ApiKeyScope, on: boolean) => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ teamId, input: { ...(name.trim() ? { name: name.trim() } : {}), scopes: [...scopes] } });
    if (!result.data) return;
    setSecret(result.data.createTeamApiKey.key);
    setName('');
    reload();
    onChanged();
  };

  const keys = list.data?.teamApiKeys ?? [];
  return (
    <section className="settings-section" aria-labelledby="team-keys-heading">
      <h2 id="team-keys-heading">Team API keys</h2>
      <p className="lead">A team key acts for the team: what it creates belongs to the team, and it reads the team’s records. It keeps working when the person who made it leaves.</p>
      {secret && (
        <div className="card" role="status">
          <h3>The new team key</h3>
          <p>Copy it now: it is shown only once and cannot be recovered.</p>
          <div className="secret">
            <code data-secret="team-api-key">{secret}</code>
            <CopyButton text={secret} label="Copy key" />
          </div>
          <div className="actions"><button type="button" className="button secondary" onClick={() => setSecret(null)}>I have stored it</button></div>
        </div>
      )}
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
        <form className="card" onSubmit={(event) => void submit(event)}>
          <h3>Create a team key</h3>
          <Field label="Key name" hint="What uses it, e.g. “billing export”">
            {(props) => <input {...props} type="text" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map(({ scope, text }) => (
              <label className="check" key={scope}>
                <input type="checkbox" checked={scopes.has(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
                <span><strong>{scope}</strong>: {text}</span>
              </label>
            ))}
          </fieldset>
          <Alert>{describeError(created.error)}</Alert>
          <button type="submit" className="button primary" disabled={created.fetching || scopes.size === 0}>Create team key</button>
        </form>
      </div>
    </section>
  );
}
