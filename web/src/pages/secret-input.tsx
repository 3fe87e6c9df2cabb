import { useEffect, useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { Alert, Field, PageTitle } from '../components';
import { ClaimSecretInputDocument, CompleteSecretInputDocument, type SecretInputRequestFieldsFragment } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { answerPasskeyChallenge, passkeysSupported } from '../lib/webauthn';

const BROWSER_KEY = 'record-signing.secret-input-browser';

/** A random key this browser keeps: the first browser to open a link keeps the link. */
function browserKey(): string {
  let key = localStorage.getItem(BROWSER_KEY);
  if (!key) {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    localStorage.setItem(BROWSER_KEY, key);
  }
  return key;
}

/**
 * Where a signer gives a signature method's secret input that an AI assistant asked for (MCP URL-mode
 * elicitation): the mailed code or the passkey, entered here and never in the chat. The link's ticket
 * is in the fragment (never sent to a server); the page shows what is being signed before the input.
 */
export function SecretInputPage() {
  // Another link opened in the same tab changes the fragment only.
  const [ticket, setTicket] = useState(() => location.hash.replace(/^#/, ''));
  useEffect(() => {
    const follow = () => setTicket(location.hash.replace(/^#/, ''));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return <SecretInput ticket={ticket} key={ticket} />;
}

function SecretInput({ ticket }: { ticket: string }) {
  const [key] = useState(browserKey);
  const [claimed, claim] = useMutation(ClaimSecretInputDocument);
  const [completed, complete] = useMutation(CompleteSecretInputDocument);
  const [code, setCode] = useState('');
  const [passkeyError, setPasskeyError] = useState<string | null>(null);

  useEffect(() => {
    if (ticket) void claim({ ticket, browserKey: key });
  }, [ticket, key, claim]);

  const request: SecretInputRequestFieldsFragment | undefined = completed.data?.completeSecretInput ?? claimed.data?.claimSecretInput;
  const done = request?.completed === true;
  const error = passkeyError ?? describeError(completed.error ?? claimed.error);

  const send = (input: { code?: string; credential?: Record<string, unknown> }) => complete({ input: { ticket, browserKey: key, ...input } });
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    void send({ code: code.trim() });
  };
  const usePasskey = async () => {
    if (!request?.challenge) return;
    setPasskeyError(null);
    try {
      await send({ credential: await answerPasskeyChallenge(request.challenge) });
    } catch (caught) {
      setPasskeyError(caught instanceof DOMException && caught.name === 'NotAllowedError' ? 'The passkey prompt was dismissed or timed out. Try again.' : 'The passkey could not be used on this device.');
    }
  };

  return (
    <section className="narrow">
      <PageTitle title="Confirm your step">Confirm your step</PageTitle>
      <p className="lead">Your AI assistant asked you to give this here, on the record signing service’s own page: the assistant never sees what you enter.</p>
      {!ticket && <Alert>This link is incomplete. Open the whole link your assistant showed you.</Alert>}
      <Alert>{error}</Alert>
      {request && (
        <div className="card stack">
          {request.purpose === 'sign_in' ? (
            <dl className="facts" aria-label="What you allow">
              <dt>Step</dt><dd>Sign-in code from your mail{request.destination && <> (sent to {request.destination})</>}</dd>
              <dt>It allows</dt><dd>Your assistant reads and lists your records for 10 minutes. It cannot sign or change anything.</dd>
            </dl>
          ) : (
            <dl className="facts" aria-label="What you are signing">
              <dt>Record</dt><dd className="mono">{request.agrReference}</dd>
              <dt>Title</dt><dd>{request.title ?? 'Untitled'}</dd>
              <dt>Version</dt><dd>{request.recordVersion}</dd>
              <dt>Step</dt><dd>{request.methodType === 'email_otp' ? 'Signature code from your mail' : 'Your passkey'}</dd>
            </dl>
          )}
          {done ? (
            <p role="status"><strong>Done.</strong> Go back to your assistant: it can go on{request.purpose === 'sign_in' ? '' : ' with your signature'}. You can close this page.</p>
          ) : (
            <>
              <p className="small muted">This link works once, in this browser, until {formatDate(request.expiresAt)}.</p>
              {(request.methodType === 'email_otp' || request.purpose === 'sign_in') && (
                <form onSubmit={submitCode}>
                  {request.prompt && <p>{request.prompt}</p>}
                  <Field label={request.purpose === 'sign_in' ? 'Sign-in code from the mail' : 'Signature code from the mail'}>
                    {(props) => <input {...props} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))} />}
                  </Field>
                  <button type="submit" className="button primary" disabled={code.length !== 6 || completed.fetching}>Confirm code</button>
                </form>
              )}
              {request.methodType === 'webauthn_passkey' && (
                <>
                  {!passkeysSupported() && <p className="small">This browser does not support passkeys.</p>}
                  <button type="button" className="button primary" disabled={completed.fetching || !request.challenge} onClick={() => void usePasskey()}>
                    {request.challenge && 'user' in (JSON.parse(request.challenge) as object) ? 'Create a passkey' : 'Confirm with passkey'}
                  </button>
                </>
              )}
            </>
          )}
        </div>
      )}
    </section>
  );
}
