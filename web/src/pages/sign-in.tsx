import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { useSession } from '../auth';
import { Alert, Field, PageTitle } from '../components';
import { RequestSignInCodeDocument, VerifySignInCodeDocument } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { navigate, useQueryParams } from '../router';

/** Email, then the six-digit code from the mail. The code is never shown or stored by the page. */
export function SignInPage() {
  const { signIn } = useSession();
  const params = useQueryParams();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [eventId, setEventId] = useState<string | null>(null);
  const [requested, requestCode] = useMutation(RequestSignInCodeDocument);
  const [verified, verifyCode] = useMutation(VerifySignInCodeDocument);

  const request = async (event: FormEvent) => {
    event.preventDefault();
    const result = await requestCode({ email: email.trim() });
    if (result.data) setEventId(result.data.requestOtp.verificationEventId);
  };

  const verify = async (event: FormEvent) => {
    event.preventDefault();
    if (!eventId) return;
    const result = await verifyCode({ verificationEventId: eventId, code: code.trim() });
    const session = result.data?.verifyOtp;
    // The page asks for sign-in codes only; a verified code of another purpose carries no session.
    if (!session?.accessToken || !session.expiresIn) return;
    signIn({ token: session.accessToken, expiresAt: Date.now() + session.expiresIn * 1000, email: email.trim().toLowerCase() });
    const next = params.get('next');
    navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
  };

  return (
    <section className="narrow">
      <PageTitle title="Sign in">Sign in</PageTitle>
      <p className="lead">We mail you a six-digit code. Signing in only gives you access: signing a record is a separate step.</p>
      {!eventId ? (
        <form onSubmit={(event) => void request(event)} className="card" noValidate>
          <Field label="Email address">
            {(props) => <input {...props} type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />}
          </Field>
          <Alert>{describeError(requested.error)}</Alert>
          <button className="button primary" type="submit" disabled={requested.fetching || !email.includes('@')}>
            {requested.fetching ? 'Sending…' : 'Email me a code'}
          </button>
        </form>
      ) : (
        <form onSubmit={(event) => void verify(event)} className="card" noValidate>
          <Alert kind="info">We sent a code to <strong>{email}</strong>. It expires in a few minutes.</Alert>
          <Field label="Six-digit code">
            {(props) => (
              <input {...props} inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} required value={code} onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))} />
            )}
          </Field>
          <Alert>{describeError(verified.error)}</Alert>
          <div className="actions">
            <button className="button primary" type="submit" disabled={verified.fetching || code.length !== 6}>
              {verified.fetching ? 'Checking…' : 'Sign in'}
            </button>
            <button className="button secondary" type="button" onClick={() => { setEventId(null); setCode(''); }}>
              Use another address
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
