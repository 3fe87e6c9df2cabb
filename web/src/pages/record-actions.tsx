import { useState } from 'react';
import { useMutation, type AnyVariables, type CombinedError, type TypedDocumentNode } from 'urql';
import { BodyField, bodyWithinLimits } from '../body-field';
import { Alert, ConfirmAction, Count, Field } from '../components';
import type { RecordDetailFragment, SignerStateFragment } from '../graphql/generated';
// The lifecycle moves run the operation catalog's own documents, the ones the REST and MCP facades run:
// a new move is one document for every client.
import {
  AmendAgreementDocument,
  CancelAgreementDocument,
  CompleteWithoutParticipantDocument,
  DeclineAgreementDocument,
  ReplaceWitnessDocument,
  RescindAgreementDocument,
  ResendInvitationDocument,
  ResolveCounterDocument,
  SubmitAgreementDocument,
  SubmitCounterDocument,
  WaiveCoNotarizerDocument,
  WaiveWitnessDocument,
  WithdrawCounterDocument,
} from '../../../src/graph/catalog/generated';
import { describeError } from '../lib/errors';
import { LIMITS } from '../lib/text';
import { Link, navigate } from '../router';

/** A mutation whose failure is shown beside the action; resolves true when it succeeded. */
function useAction<Data, Variables extends AnyVariables>(document: TypedDocumentNode<Data, Variables>) {
  const [state, run] = useMutation(document);
  const [error, setError] = useState<CombinedError | null>(null);
  const act = async (variables: Variables): Promise<Data | null> => {
    const result = await run(variables);
    setError(result.error ?? null);
    return result.error ? null : (result.data ?? null);
  };
  return { act, error, fetching: state.fetching };
}

export type Viewer = { me: SignerStateFragment | null };

/**
 * The moves the service offers the caller on the record now (`availableActions`, computed from the
 * lifecycle table), consequential ones behind a confirmation: the page decides nothing by itself.
 */
export function RecordActions({ record, viewer, onChanged }: { record: RecordDetailFragment; viewer: Viewer; onChanged: () => void }) {
  const { me } = viewer;
  const id = record.id;
  const offered = new Set(record.availableActions);
  const submit = useAction(SubmitAgreementDocument);
  const rescind = useAction(RescindAgreementDocument);
  const cancel = useAction(CancelAgreementDocument);
  const decline = useAction(DeclineAgreementDocument);
  const amend = useAction(AmendAgreementDocument);
  const counter = useAction(SubmitCounterDocument);
  const resolve = useAction(ResolveCounterDocument);
  const withdraw = useAction(WithdrawCounterDocument);
  const [reason, setReason] = useState('');
  const [newBody, setNewBody] = useState(record.body);
  const [note, setNote] = useState('');
  const [resolvedBody, setResolvedBody] = useState(record.activeCounter?.proposedBody ?? '');

  const activeCounter = record.activeCounter?.status === 'pending' ? record.activeCounter : null;
  const error = describeError(submit.error ?? rescind.error ?? cancel.error ?? decline.error ?? amend.error ?? counter.error ?? resolve.error ?? withdraw.error);
  const done = (ok: unknown) => {
    if (ok) onChanged();
    return Boolean(ok);
  };

  const actions = [
    offered.has('sign') && (
      <Link key="sign" className="button primary" href={`/records/${record.agrReference}/sign`}>
        {me?.signatureState.status === 'in_progress' ? 'Continue signing' : 'Sign'}
      </Link>
    ),
    offered.has('submit') && (
      <ConfirmAction key="submit" primary error={describeError(submit.error)} label="Submit for signatures" title="Submit this record?" confirmLabel="Submit and invite"
        description={<p>Invitations go out to every participant now. After this, the terms can only change through a counter-proposal or, once sealed, an amendment.</p>}
        onConfirm={async () => done(await submit.act({ id }))} />
    ),
    offered.has('cancel_draft') && (
      <ConfirmAction key="cancel-draft" error={describeError(cancel.error)} label="Cancel draft" danger title="Cancel this draft?" confirmLabel="Cancel draft"
        description={<p>The draft is closed for good; nobody is invited.</p>}
        onConfirm={async () => done(await cancel.act({ id }))} />
    ),
    offered.has('rescind') && (
      <ConfirmAction key="rescind" error={describeError(rescind.error)} label="Rescind" danger title="Rescind this record?" confirmLabel="Rescind record"
        description={<p>The record ends now for everyone; signatures already given no longer lead to a seal.</p>}
        onConfirm={async () => done(await rescind.act({ id }))} />
    ),
    offered.has('decline') && (
      <ConfirmAction key="decline" error={describeError(decline.error)} label="Decline" danger title="Decline to sign?" confirmLabel="Decline"
        description={<p>{me?.role === 'witness' ? 'You step out as a witness; the initiator may waive or replace you.' : 'If nobody else can still sign, the record ends as declined.'}</p>}
        onConfirm={async () => done(await decline.act({ id, input: reason.trim() ? { reason: reason.trim() } : {} }))}>
        <Field label="Reason (optional)" counter={<Count value={reason.length} max={LIMITS.reason} unit="characters" />}>
          {(props) => <input {...props} type="text" value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
      </ConfirmAction>
    ),
    offered.has('propose_counter') && (
      <ConfirmAction key="counter" error={describeError(counter.error)} label="Propose changes" title="Propose a counter-proposal" confirmLabel="Send proposal"
        description={<p>The initiator reviews your full replacement text. If accepted, everyone signs the new version.</p>}
        onConfirm={async () => (bodyWithinLimits(newBody) ? done(await counter.act({ id, input: { proposedBody: newBody } })) : false)}>
        <BodyField label="Proposed terms" value={newBody} onChange={setNewBody} />
      </ConfirmAction>
    ),
    offered.has('resolve_counter') && activeCounter && (
      <ConfirmAction key="resolve" error={describeError(resolve.error)} label="Review counter-proposal" title="Resolve the counter-proposal" confirmLabel="Accept as shown"
        description={<p>Accepting changes the terms: a new version that everyone signs again, you included. Edit the text below to accept in part.</p>}
        onConfirm={async () =>
          done(await resolve.act({ id, counterId: activeCounter.id, input: { decision: resolvedBody === activeCounter.proposedBody ? 'accept' : 'partially_accept', ...(resolvedBody === activeCounter.proposedBody ? {} : { resolvedBody }) } }))
        }>
        <BodyField label="Resulting terms" value={resolvedBody} onChange={setResolvedBody} />
        <button type="button" className="button danger-outline small" onClick={() => void resolve.act({ id, counterId: activeCounter.id, input: { decision: 'reject' } }).then(done)}>
          Reject the proposal instead
        </button>
      </ConfirmAction>
    ),
    offered.has('withdraw_counter') && activeCounter && (
      <ConfirmAction key="withdraw" error={describeError(withdraw.error)} label="Withdraw my proposal" title="Withdraw your counter-proposal?" confirmLabel="Withdraw"
        description={<p>The record returns to collecting signatures on the current terms.</p>}
        onConfirm={async () => done(await withdraw.act({ id, counterId: activeCounter.id }))} />
    ),
    offered.has('amend') && (
      <ConfirmAction key="amend" error={describeError(amend.error)} label="Amend" title="Propose an amendment" confirmLabel="Create amendment draft"
        description={<p>A new draft with the same participants; when it is sealed it supersedes this record.</p>}
        onConfirm={async () => {
          if (!bodyWithinLimits(newBody)) return false;
          const created = await amend.act({ id, input: { body: newBody, ...(note.trim() ? { amendmentNote: note.trim() } : {}) } });
          if (created) navigate(`/records/${created.amendAgreement.agrReference}`);
          return Boolean(created);
        }}>
        <BodyField label="Amended terms" value={newBody} onChange={setNewBody} />
        <Field label="Note (optional)" counter={<Count value={note.length} max={LIMITS.reason} unit="characters" />}>
          {(props) => <input {...props} type="text" value={note} onChange={(e) => setNote(e.target.value)} />}
        </Field>
      </ConfirmAction>
    ),
    offered.has('cancel') && (
      <ConfirmAction key="cancel-sealed" error={describeError(cancel.error)} label="Cancel by agreement" danger title="Propose a mutual cancellation?" confirmLabel="Create cancellation draft"
        description={<p>A cancellation record is drafted; it takes effect only when everyone signs it.</p>}
        onConfirm={async () => {
          const created = await cancel.act({ id, input: reason.trim() ? { reason: reason.trim() } : {} });
          if (created) navigate(`/records/${created.cancelAgreement.agrReference}`);
          return Boolean(created);
        }}>
        <Field label="Reason (optional)" counter={<Count value={reason.length} max={LIMITS.reason} unit="characters" />}>
          {(props) => <input {...props} type="text" value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
      </ConfirmAction>
    ),
  ].filter(Boolean);

  return (
    <div className="card">
      <h2>What you can do</h2>
      {offered.has('edit') && !offered.has('submit') && (
        <p className="muted small">Sign the draft first; then you can submit it for the others to sign.</p>
      )}
      <Alert>{error}</Alert>
      {actions.length ? <div className="actions">{actions}</div> : <p className="muted">Nothing to do on this record right now.</p>}
    </div>
  );
}

/** Initiator moves on one participant (resend, waive, complete without, replace), as the service offers them. */
export function ParticipantActions({ record, party, onChanged }: { record: RecordDetailFragment; party: SignerStateFragment; onChanged: () => void }) {
  const resend = useAction(ResendInvitationDocument);
  const waiveWitness = useAction(WaiveWitnessDocument);
  const waiveCoNotarizer = useAction(WaiveCoNotarizerDocument);
  const completeWithout = useAction(CompleteWithoutParticipantDocument);
  const replace = useAction(ReplaceWitnessDocument);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const vars = { id: record.id, partyId: party.id };
  const who = party.displayName ?? 'this participant';
  const done = (ok: unknown) => {
    if (ok) onChanged();
    return Boolean(ok);
  };
  const offered = new Set(party.availableActions);
  const error = describeError(resend.error ?? waiveWitness.error ?? waiveCoNotarizer.error ?? completeWithout.error ?? replace.error);
  if (offered.size === 0) return null;

  return (
    <>
      <div className="actions">
        {offered.has('resend_invitation') && (
          <button type="button" className="button secondary small" disabled={resend.fetching} onClick={() => void resend.act(vars).then(done)}>
            Resend invitation<span className="visually-hidden"> to {who}</span>
          </button>
        )}
        {offered.has('waive_witness') && (
          <ConfirmAction label={`Waive ${who}`} title={`Waive ${who}?`} description={<p>The record no longer waits for this witness.</p>} onConfirm={async () => done(await waiveWitness.act(vars))} />
        )}
        {offered.has('waive_co_notarizer') && (
          <ConfirmAction label={`Waive ${who}`} title={`Waive ${who}?`} description={<p>The notarization no longer waits for this co-notarizer.</p>} onConfirm={async () => done(await waiveCoNotarizer.act(vars))} />
        )}
        {offered.has('complete_without') && (
          <ConfirmAction label={`Complete without ${who}`} title={`Complete without ${who}?`} description={<p>The record can seal with the remaining signers.</p>} onConfirm={async () => done(await completeWithout.act(vars))} />
        )}
        {offered.has('replace_witness') && (
          <ConfirmAction label={`Replace ${who}`} title={`Replace ${who}`} confirmLabel="Invite replacement"
            description={<p>The new witness is invited; {who} loses access to the record.</p>}
            onConfirm={async () => done(await replace.act({ ...vars, input: { displayName: name.trim(), contactPointValue: email.trim() } }))}>
            <Field label="New witness name">{(props) => <input {...props} type="text" maxLength={LIMITS.displayName} value={name} onChange={(e) => setName(e.target.value)} />}</Field>
            <Field label="New witness email">{(props) => <input {...props} type="email" value={email} onChange={(e) => setEmail(e.target.value)} />}</Field>
          </ConfirmAction>
        )}
      </div>
      <Alert>{error}</Alert>
    </>
  );
}
