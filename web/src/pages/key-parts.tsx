import { useState, type FormEvent, type ReactNode } from 'react';
import { Alert, CopyButton, Field } from '../components';
import type { ApiKeyScope } from '../graphql/generated';
import { API_KEY_SCOPES, SCOPE_DESCRIPTIONS } from '../../../src/domain/vocabulary.js';

/** Each scope a key may be given, with what it allows (the words the consent page and the docs use). */
const SCOPES: { scope: ApiKeyScope; text: string }[] = API_KEY_SCOPES.map((scope) => ({ scope, text: SCOPE_DESCRIPTIONS[scope] }));

/** A key just made, shown this once (a person's own key or a team's). */
export function NewKeyCard({ heading, secret, secretName, onStored }: { heading: ReactNode; secret: string; secretName: string; onStored: () => void }) {
  return (
    <div className="card" role="status">
      {heading}
      <p>Copy it now: it is shown only once and cannot be recovered.</p>
      <div className="secret">
        <code data-secret={secretName}>{secret}</code>
        <CopyButton text={secret} label="Copy key" />
      </div>
      <div className="actions"><button type="button" className="button secondary" onClick={onStored}>I have stored it</button></div>
    </div>
  );
}

/**
 * The form that makes a key: its name and exact scopes. `create` answers whether the key was made
 * (the form then clears its name); `error` is the creation's, shown above the button.
 */
export function NewKeyForm({ heading, nameLabel, submitLabel, busy, error, create }: {
  heading: ReactNode;
  nameLabel: string;
  submitLabel: string;
  busy: boolean;
  error: string | null;
  create: (input: { name?: string; scopes: ApiKeyScope[] }) => Promise<boolean>;
}) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<ApiKeyScope>>(new Set(['retrieve']));
  const toggle = (scope: ApiKeyScope, on: boolean) => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await create({ ...(name.trim() ? { name: name.trim() } : {}), scopes: [...scopes] })) setName('');
  };
  return (
    <form className="card" onSubmit={(event) => void submit(event)}>
      {heading}
      <Field label={nameLabel} hint="What uses it, e.g. “billing export”">
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
      <Alert>{error}</Alert>
      <button type="submit" className="button primary" disabled={busy || scopes.size === 0}>{submitLabel}</button>
    </form>
  );
}
