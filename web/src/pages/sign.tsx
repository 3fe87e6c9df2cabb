import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { Alert, CopyButton, Field, PageTitle } from '../components';
import {
  CancelMethodDocument,
  ExecutionDocument,
  FinalizeSignatureDocument,
  RefreshMethodDocument,
  StartExecutionDocument,
  StartMethodDocument,
  SubmitMethodDocument,
  type ExecutionStateFragment,
  type SignatureMethodType,
} from '../graphql/generated';
import { describeError } from '../lib/errors';
import { passkeysSupported, answerPasskeyChallenge } from '../lib/webauthn';
import { Link } from '../router';
import { recordTitle } from './dashboard';
import { useLiveRecord } from './record';

type Method = ExecutionStateFragment['methods'][number];

const METHOD_NAMES: Record<SignatureMethodType, string> = {
  email_otp: 'Email code',
  webauthn_passkey: 'Passkey',
  codehost_gist: 'Code host gist',
  microblog_post: 'Microblog post',
  forum_post: 'Forum post',
  messenger: 'Messenger',
  api_key: 'API key',
};

const METHOD_HINTS: Record<SignatureMethodType, string> = {
  email_otp: 'We mail a signature code to your address.',
  webauthn_passkey: 'Your device confirms with a fingerprint, face or PIN.',
  codehost_gist: 'Publish a short proof text as a public gist, then paste its address.',
  microblog_post: 'Post a short proof text publicly, then paste the post’s address.',
  forum_post: 'Post a short proof text in the forum, then paste the post’s address.',
  messenger: 'Send a code to our bot from your messenger account.',
  api_key: 'For integrations only.',
};

const PROOF_POSTS = new Set<SignatureMethodType>(['codehost_gist', 'microblog_post', 'forum_post']);

/** The signature ceremony for the caller's participant: methods, then finalize; progress arrives live. */
export function SignPage({ id }: { id: string }) {
  const { result: recordResult, lastProgress } = useLiveRecord(id);
  const record = recordResult.data?.record;
  const [started, start] = useMutation(StartExecutionDocument);
  const [execution, setExecution] = useState<ExecutionStateFragment | null>(null);
  const [current, refetchExecution] = useQuery({ query: ExecutionDocument, variables: { recordId: record?.id ?? '' }, pause: !execution || !record, requestPolicy: 'network-only' });
  const [finalized, finalize] = useMutation(FinalizeSignatureDocument);
  const [acknowledged, setAcknowledged] = useState(false);
  const [done, setDone] = useState(false);

  useEffect(() => {
    if (!record || execution) return;
    void start({ recordId: record.id }).then((result) => {
      if (result.data) setExecution(result.data.startSignatureExecution);
    });
  }, [record, execution, start]);
  useEffect(() => {
    if (lastProgress) refetchExecution({ requestPolicy: 'network-only' });
  }, [lastProgress, refetchExecution]);
  useEffect(() => {
    if (current.data) setExecution(current.data.signatureExecution);
  }, [current.data]);

  if (!record) {
    return (
      <section>
        <PageTitle title="Sign">Loading…</PageTitle>
        <Alert>{describeError(recordResult.error)}</Alert>
      </section>
    );
  }
  const needsAck = record.onChainIncludeVerifiedParties;
  const signed = done || execution?.status === 'finalized';

  const doFinalize = async (event: FormEvent) => {
    event.preventDefault();
    const result = await finalize({ recordId: record.id, ...(needsAck ? { acknowledge: acknowledged } : {}) });
    if (!result.error) setDone(true);
  };

  return (
    <section className="medium">
      <p className="small"><Link href={`/records/${record.agrReference}`}>← {record.agrReference}</Link></p>
      <PageTitle title={`Sign ${record.agrReference}`}>Sign “{recordTitle(record)}”</PageTitle>
      <p className="lead">You sign version {record.currentVersion} of the terms below. Complete {record.requiredSignatureMethodCount === 1 ? 'one method' : `${record.requiredSignatureMethodCount} different methods`}, then finalize.</p>
      <details className="card" open>
        <summary>Read the terms you are signing</summary>
        <div className="terms">{record.notarization ? `Content hash ${record.notarization.contentHash}` : record.body}</div>
      </details>
      <Alert>{describeError(started.error)}</Alert>
      {signed ? (
        <div className="card" role="status">
          <h2>Signed</h2>
          <p>Your signature on version {record.currentVersion} is final.</p>
          {record.status === 'draft' ? (
            <p>Next: <Link href={`/records/${record.agrReference}`}>submit the record</Link> so the others are invited.</p>
          ) : (
            <p><Link href={`/records/${record.agrReference}`}>Back to the record</Link></p>
          )}
        </div>
      ) : execution ? (
        <>
          <p aria-live="polite" className="muted">
            {execution.satisfiedMethodCount} of {execution.requiredSignatureMethodCount} method{execution.requiredSignatureMethodCount === 1 ? '' : 's'} done.
          </p>
          <ul className="method-list">
            {execution.methods.filter((method) => method.methodType !== 'api_key').map((method) => (
              <MethodCard key={method.methodType} recordId={record.id} method={method} onChange={setExecution} />
            ))}
          </ul>
          <form className="card" onSubmit={(event) => void doFinalize(event)}>
            <h2>Finalize</h2>
            {needsAck && (
              <label className="check">
                <input type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} />
                I understand that my verified name and contact details are published on a public blockchain with this record, permanently.
              </label>
            )}
            <Alert>{describeError(finalized.error)}</Alert>
            <button type="submit" className="button primary" disabled={!execution.canFinalize || (needsAck && !acknowledged) || finalized.fetching}>
              Sign version {execution.recordVersion}
            </button>
            {!execution.canFinalize && <p className="muted small">Complete the methods above first.</p>}
          </form>
        </>
      ) : (
        <p className="muted">{started.fetching ? 'Starting…' : ''}</p>
      )}
    </section>
  );
}

function MethodCard({ recordId, method, onChange }: { recordId: string; method: Method; onChange: (execution: ExecutionStateFragment) => void }) {
  const [startState, startMethod] = useMutation(StartMethodDocument);
  const [submitState, submitMethod] = useMutation(SubmitMethodDocument);
  const [refreshState, refreshMethod] = useMutation(RefreshMethodDocument);
  const [cancelState, cancelMethod] = useMutation(CancelMethodDocument);
  const [code, setCode] = useState('');
  const [url, setUrl] = useState('');
  const [passkeyError, setPasskeyError] = useState<string | null>(null);
  const type = method.methodType;
  const name = METHOD_NAMES[type];
  const step = method.step;
  const vars = { recordId, methodType: type };
  const apply = (execution: ExecutionStateFragment | undefined) => execution && onChange(execution);
  const error = passkeyError ?? describeError(startState.error ?? submitState.error ?? refreshState.error ?? cancelState.error);

  const begin = async () => {
    setPasskeyError(null);
    const result = await startMethod(vars);
    apply(result.data?.startSignatureMethod);
  };
  const send = async (input: { code?: string; url?: string; credential?: { [key: string]: unknown } }) => {
    const result = await submitMethod({ ...vars, input });
    apply(result.data?.submitSignatureMethod);
  };
  const usePasskey = async () => {
    if (!step?.challenge) return;
    setPasskeyError(null);
    try {
      await send({ credential: await answerPasskeyChallenge(step.challenge) });
    } catch (caught) {
      setPasskeyError(caught instanceof DOMException && caught.name === 'NotAllowedError' ? 'The passkey prompt was dismissed or timed out. Try again.' : 'The passkey could not be used on this device.');
    }
  };
  const submitForm = (event: FormEvent) => {
    event.preventDefault();
    void send(type === 'email_otp' ? { code: code.trim() } : { url: url.trim() });
  };

  return (
    <li className={`method ${method.status}`} data-method={type}>
      <div className="method-head">
        <h3>{name}</h3>
        <span className={`badge ${method.status === 'satisfied' ? 'finalized' : method.status === 'pending' ? 'in_progress' : ''}`}>
          {method.status === 'satisfied' ? 'Done' : method.status === 'pending' ? 'In progress' : method.status === 'available' ? 'Available' : method.status}
        </span>
      </div>
      {method.status !== 'satisfied' && method.status !== 'pending' && (
        <>
          <p className="muted small">{METHOD_HINTS[type]}</p>
          {type === 'webauthn_passkey' && !passkeysSupported() && <p className="small">This browser does not support passkeys.</p>}
          <button type="button" className="button secondary" disabled={startState.fetching} onClick={() => void begin()}>
            {method.status === 'available' ? 'Start' : 'Start again'}<span className="visually-hidden"> {name}</span>
          </button>
        </>
      )}
      {method.status === 'pending' && step && (
        <div className="stack">
          <p>{type === 'webauthn_passkey' ? 'Confirm with your passkey when your browser asks.' : step.prompt}</p>
          {type === 'email_otp' && (
            <form onSubmit={submitForm}>
              <Field label="Signature code from the mail">
                {(props) => <input {...props} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))} />}
              </Field>
              <button type="submit" className="button primary" disabled={code.length !== 6 || submitState.fetching}>Confirm code</button>
            </form>
          )}
          {PROOF_POSTS.has(type) && (
            <form onSubmit={submitForm}>
              {step.proofTitle && <p className="small"><strong>Title:</strong> {step.proofTitle} <CopyButton text={step.proofTitle} label="Copy title" /></p>}
              {step.proofText && (
                <>
                  <div className="proof" aria-label="Proof text">{step.proofText}</div>
                  <CopyButton text={step.proofText} label="Copy proof text" />
                </>
              )}
              <Field label="Address (URL) of your public post">
                {(props) => <input {...props} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />}
              </Field>
              <div className="actions">
                <button type="submit" className="button primary" disabled={!url.trim() || submitState.fetching}>Check my post</button>
              </div>
            </form>
          )}
          {type === 'webauthn_passkey' && (
            <button type="button" className="button primary" disabled={submitState.fetching} onClick={() => void usePasskey()}>
              {step.challenge && 'user' in (JSON.parse(step.challenge) as object) ? 'Create a passkey' : 'Confirm with passkey'}
            </button>
          )}
          {type === 'messenger' && (
            <>
              {step.url && <a className="button primary" href={step.url} target="_blank" rel="noopener noreferrer">Open the messenger bot</a>}
              {step.challenge && <p className="small">Or send this code to the bot: <span className="mono">{step.challenge}</span> <CopyButton text={step.challenge} /></p>}
            </>
          )}
          <div className="actions">
            {(type === 'messenger' || PROOF_POSTS.has(type)) && (
              <button type="button" className="button secondary small" disabled={refreshState.fetching} onClick={() => void refreshMethod(vars).then((r) => apply(r.data?.refreshSignatureMethod))}>
                Check again
              </button>
            )}
            <button type="button" className="button secondary small" disabled={cancelState.fetching} onClick={() => void cancelMethod(vars).then((r) => apply(r.data?.cancelSignatureMethod))}>
              Cancel<span className="visually-hidden"> {name}</span>
            </button>
          </div>
        </div>
      )}
      <Alert>{error}</Alert>
    </li>
  );
}
