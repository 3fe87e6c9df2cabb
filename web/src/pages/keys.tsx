import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, ConfirmAction, PageTitle } from '../components';
import { NewKeyCard, NewKeyForm } from './key-parts';
import { useSession } from '../auth';
import { ApiKeysDocument, CreateApiKeyDocument, RevokeApiKeyDocument, SignOutDocument, type ApiKeyScope } from '../graphql/generated';
import { navigate } from '../router';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { WebhooksSection } from './webhooks';

/** API keys (created with exact scopes, shown once, revoked at once) and webhook endpoints. */
export function KeysPage() {
  const [list, refetch] = useQuery({ query: ApiKeysDocument });
  const [created, create] = useMutation(CreateApiKeyDocument);
  const [revoked, revoke] = useMutation(RevokeApiKeyDocument);
  const [secret, setSecret] = useState<string | null>(null);

  const createKey = async (input: { name?: string; scopes: ApiKeyScope[] }) => {
    const result = await create({ input });
    if (!result.data) return false;
    setSecret(result.data.createApiKey.key);
    refetch({ requestPolicy: 'network-only' });
    return true;
  };

  const keys = list.data?.apiKeys ?? [];
  return (
    <section>
      <PageTitle title="API keys and webhooks">API keys and webhooks</PageTitle>
      <p className="lead">Keys let your own programs use the API with exactly the permissions you choose. A key can never sign for you by itself. <a href="#webhooks-heading">Webhooks</a> push your records’ events to your systems.</p>
      {secret && <NewKeyCard heading={<h2>Your new key</h2>} secret={secret} secretName="api-key" onStored={() => setSecret(null)} />}
      <div className="grid-2">
        <div>
          <h2>Active keys</h2>
          <Alert>{describeError(list.error ?? revoked.error)}</Alert>
          {keys.length === 0 ? (
            <p className="card empty">No active keys.</p>
          ) : (
            <div className="table-wrap">
              <table className="keys-table">
                <caption className="visually-hidden">Active API keys</caption>
                <thead>
                  <tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
                </thead>
                <tbody>
                  {keys.map((key) => (
                    <tr key={key.id}>
                      <td><strong>{key.name ?? 'Unnamed'}</strong><br /><span className="mono small">{key.keyPrefix}…</span><br /><span className="muted small">Created {formatDate(key.createdAt)}</span></td>
                      <td><span className="cell-label">Scopes: </span>{key.scopes.join(', ')}</td>
                      <td><span className="cell-label">Last used: </span>{key.lastUsedAt ? formatDate(key.lastUsedAt) : 'Never'}</td>
                      <td>
                        <ConfirmAction label={`Revoke ${key.name ?? key.keyPrefix}`} danger title="Revoke this key?" confirmLabel="Revoke key"
                          description={<p>Programs using <span className="mono">{key.keyPrefix}…</span> stop working immediately. This cannot be undone.</p>}
                          error={describeError(revoked.error)}
                          onConfirm={async () => {
                            const result = await revoke({ id: key.id });
                            if (!result.error) refetch({ requestPolicy: 'network-only' });
                            return !result.error;
                          }} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
        <NewKeyForm heading={<h2>Create a key</h2>} nameLabel="Name" submitLabel="Create key" busy={created.fetching} error={describeError(created.error)} create={createKey} />
      </div>
      <WebhooksSection />
      <SessionsSection />
    </section>
  );
}

/** Every sign-in of the person ends at once, on every device (API keys and connected assistants stay). */
function SessionsSection() {
  const { signOut } = useSession();
  const [ended, end] = useMutation(SignOutDocument);
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Signed-in devices</h2>
      <p>Signed in on a computer you no longer use, or lost a phone? End every session of yours at once, this one included. Your API keys and connected assistants keep working; revoke them above.</p>
      <ConfirmAction label="Sign out everywhere" danger title="Sign out on every device?" confirmLabel="Sign out every device" error={describeError(ended.error)}
        description={<p>Every browser and device signed in as you is signed out now, this one too.</p>}
        onConfirm={async () => {
          const result = await end({ everywhere: true });
          if (result.error) return false;
          signOut();
          navigate('/sign-in');
        }} />
    </section>
  );
}
