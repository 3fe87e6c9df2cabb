import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { BodyField } from '../body-field';
import { Alert, Count, Field, PageTitle, Progress } from '../components';
import { formatBytes } from '../file-drop';
import {
  RecordDetailDocument,
  RecordLifecycleFeedDocument,
  SetRemindersDocument,
  SignatureProgressFeedDocument,
  UpdateDraftDocument,
  type RecordDetailFragment,
} from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate, ROLE_LABELS, signatureProgress, signerLabel, STATUS_LABELS, TYPE_LABELS } from '../lib/format';
import { SIGNING_ORDER_LABELS } from '../lib/templates';
import { LIMITS } from '../lib/text';
import { findMe, useMe } from '../me';
import { Link } from '../router';
import { useTeams } from '../teams';
import { AuditTrail, SealedArtifacts } from '../sealed-artifacts';
import { recordTitle } from './dashboard';
import { ParticipantActions, RecordActions, type Viewer } from './record-actions';

/** Keeps a record current: refetches on each lifecycle move and ceremony step pushed for it. */
export function useLiveRecord(id: string) {
  const [result, refetch] = useQuery({ query: RecordDetailDocument, variables: { id } });
  const recordId = result.data?.record.id;
  const paused = !recordId;
  const [lifecycle] = useSubscription({ query: RecordLifecycleFeedDocument, variables: { recordId: recordId ?? '' }, pause: paused });
  const [progress] = useSubscription({ query: SignatureProgressFeedDocument, variables: { recordId: recordId ?? '' }, pause: paused });
  const lastLifecycle = lifecycle.data?.recordLifecycle;
  const lastProgress = progress.data?.signatureProgress;
  useEffect(() => {
    if (lastLifecycle || lastProgress) refetch({ requestPolicy: 'network-only' });
  }, [lastLifecycle, lastProgress, refetch]);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  return { result, reload, lastProgress };
}

export function RecordPage({ id }: { id: string }) {
  const { result, reload } = useLiveRecord(id);
  const me = useMe();
  const { teams } = useTeams();
  const [editing, setEditing] = useState(false);
  const record = result.data?.record;
  // The API names the owning team to its own readers only, so the caller's teams name it.
  const team = record?.teamId ? teams.find((candidate) => candidate.id === record.teamId) ?? null : null;

  if (!record) {
    return (
      <section>
        <PageTitle title="Record">{result.fetching ? 'Loading record…' : 'Record not available'}</PageTitle>
        <Alert>{describeError(result.error)}</Alert>
        <Link href="/">Back to your records</Link>
      </section>
    );
  }

  const mine = findMe(record.parties, me.emails);
  const viewer: Viewer = { me: mine };
  const progress = signatureProgress(record.parties);
  const turn = new Set(record.signingOrder === 'sequential' ? record.currentSignerIds : []);

  return (
    <section>
      <div className="page-head">
        <div>
          <PageTitle title={record.agrReference}>{recordTitle(record)}</PageTitle>
          <div className="record-meta">
            <span className="mono">{record.agrReference}</span>
            <span>{TYPE_LABELS[record.type]}</span>
            <span>Version {record.currentVersion}</span>
            <span className={`badge ${record.status}`}>{STATUS_LABELS[record.status]}</span>
          </div>
        </div>
        <Progress signed={progress.signed} total={progress.total} />
      </div>
      {record.supersededByAgrId && (
        <Alert kind="info">This record is superseded. <Link href={`/records/${record.supersededByAgrId}`}>Open the record that governs now</Link>.</Alert>
      )}
      {record.supersedesAgrId && (
        <Alert kind="info">This record amends or cancels <Link href={`/records/${record.supersedesAgrId}`}>an earlier record</Link>.</Alert>
      )}
      <div className="grid-2">
        <div>
          <RecordActions record={record} viewer={viewer} onChanged={reload} />
          {editing ? (
            <EditDraft record={record} onDone={() => { setEditing(false); reload(); }} />
          ) : (
            <Terms record={record} onEdit={record.availableActions.includes('edit') ? () => setEditing(true) : null} />
          )}
          {record.activeCounter && (
            <div className="card">
              <h2>Counter-proposal ({record.activeCounter.status})</h2>
              <p className="muted small">Proposed {formatDate(record.activeCounter.createdAt)}</p>
              <div className="terms">{record.activeCounter.proposedBody}</div>
            </div>
          )}
          <AuditTrail recordId={record.id} />
        </div>
        <div>
          <div className="card">
            <h2>Participants</h2>
            <WhoseTurn record={record} />
            <ul className="party-list">
              {record.parties.map((party) => (
                <li key={party.id} data-party={party.displayName ?? ''}>
                  <div className="party-head">
                    <strong>{party.displayName ?? party.contactPointValue ?? ROLE_LABELS[party.role]}{party.id === mine?.id ? ' (you)' : ''}</strong>
                    <span className="badge-group">
                      {turn.has(party.id) && <span className="badge turn">Their turn</span>}
                      <span className={`badge ${party.declinedAt ? 'declined' : party.signatureState.status}`}>{signerLabel(party)}</span>
                    </span>
                  </div>
                  <div className="muted small">
                    {ROLE_LABELS[party.role]}
                    {party.contactPointValue && party.displayName ? ` · ${party.contactPointValue}` : ''}
                    {party.confirmedAt ? ` · signed ${formatDate(party.confirmedAt)}` : ''}
                  </div>
                  {party.declinedReason && <div className="small">Reason: {party.declinedReason}</div>}
                  <ParticipantActions record={record} party={party} onChanged={reload} />
                </li>
              ))}
            </ul>
          </div>
          <div className="card">
            <h2>Details</h2>
            <dl className="facts">
              <dt>Created</dt><dd>{formatDate(record.createdAt)}</dd>
              {record.teamId && <><dt>Team</dt><dd>{team ? <Link href={`/teams/${team.id}`}>{team.name}</Link> : 'A team of yours'}</dd></>}
              {record.expiresAt && <><dt>Expires</dt><dd>{formatDate(record.expiresAt)}</dd></>}
              {record.sealedAt && <><dt>Sealed</dt><dd>{formatDate(record.sealedAt)}</dd></>}
              <dt>Methods</dt><dd>{record.requiredSignatureMethodCount} per signer</dd>
              {record.notarization === null && <><dt>Signing order</dt><dd>{SIGNING_ORDER_LABELS[record.signingOrder]}</dd></>}
              {record.template && <><dt>Template</dt><dd><Link href={`/templates/${record.template.id}`}>Version {record.template.version}</Link></dd></>}
              <dt>On chain</dt><dd>{record.onChainFullText ? 'Full text' : 'Hash only'}{record.onChainIncludeVerifiedParties ? ', with verified signers' : ''}</dd>
              {record.jurisdiction && <><dt>Jurisdiction</dt><dd>{record.jurisdiction}</dd></>}
            </dl>
            <Reminders record={record} initiator={mine?.role === 'initiator'} onChanged={reload} />
            {record.status !== 'draft' && (
              <p className="small"><Link href={`/verify/${record.agrReference}`}>Public verification page</Link></p>
            )}
          </div>
          {record.sealedAt ? (
            <SealedArtifacts recordId={record.id} />
          ) : (
            <div className="placeholder" data-slot="sealed-artifacts">
              <h2>Sealed artifacts</h2>
              <p className="small">Once every participant has signed, the sealed document and chain record appear here.</p>
            </div>
          )}
        </div>
      </div>
    </section>
  );
}

function Terms({ record, onEdit }: { record: RecordDetailFragment; onEdit: (() => void) | null }) {
  const notarization = record.notarization;
  return (
    <div className="card">
      <div className="party-head">
        <h2>{notarization ? 'What was notarized' : 'Terms'}</h2>
        {onEdit && <button type="button" className="button secondary small" onClick={onEdit}>Edit draft</button>}
      </div>
      {record.summary && <p className="lead">{record.summary}</p>}
      {notarization ? (
        <dl className="facts">
          <dt>Kind</dt><dd>{notarization.contentType}</dd>
          {notarization.filename && <><dt>File</dt><dd>{notarization.filename}</dd></>}
          {notarization.sizeBytes !== null && <><dt>Size</dt><dd>{formatBytes(notarization.sizeBytes)}</dd></>}
          <dt>Content hash</dt><dd className="mono">{notarization.contentHash}</dd>
          {notarization.text && <><dt>Text</dt><dd className="terms">{notarization.text}</dd></>}
        </dl>
      ) : (
        <>
          <div className="terms">{record.body}</div>
          <p className="muted small">Body hash <span className="mono">{record.bodyHash}</span></p>
        </>
      )}
    </div>
  );
}

function EditDraft({ record, onDone }: { record: RecordDetailFragment; onDone: () => void }) {
  const [title, setTitle] = useState(record.title ?? '');
  const [summary, setSummary] = useState(record.summary ?? '');
  const [body, setBody] = useState(record.body);
  const [state, update] = useMutation(UpdateDraftDocument);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const input = {
      ...(title !== (record.title ?? '') ? { title: title.trim() || null } : {}),
      ...(summary !== (record.summary ?? '') ? { summary: summary.trim() || null } : {}),
      ...(body !== record.body ? { body } : {}),
    };
    const result = await update({ id: record.id, input });
    if (!result.error) onDone();
  };
  return (
    <form className="card" onSubmit={(event) => void save(event)} noValidate>
      <h2>Edit draft</h2>
      <p className="muted small">Changing the terms resets your signature on this draft.</p>
      <Field label="Title" counter={<Count value={[...title].length} max={LIMITS.title} unit="characters" />}>
        {(props) => <input {...props} type="text" value={title} onChange={(e) => setTitle(e.target.value)} />}
      </Field>
      {!record.notarization && <BodyField value={body} onChange={setBody} />}
      <Field label="Summary" counter={<Count value={[...summary].length} max={LIMITS.summary} unit="characters" />}>
        {(props) => <input {...props} type="text" value={summary} onChange={(e) => setSummary(e.target.value)} />}
      </Field>
      <Alert>{describeError(state.error)}</Alert>
      <div className="actions">
        <button type="submit" className="button primary" disabled={state.fetching}>Save draft</button>
        <button type="button" className="button secondary" onClick={onDone}>Discard changes</button>
      </div>
    </form>
  );
}

/** With a signing order, who may sign now (the service's `currentSignerIds`); nothing to say in parallel. */
function WhoseTurn({ record }: { record: RecordDetailFragment }) {
  if (record.signingOrder !== 'sequential' || record.status === 'draft') return null;
  const now = record.parties.filter((party) => record.currentSignerIds.includes(party.id));
  if (record.status !== 'pending_confirmation' || now.length === 0) return <p className="muted small">Signed one at a time, in list order.</p>;
  const names = now.map((party) => party.displayName ?? party.contactPointValue ?? ROLE_LABELS[party.role]).join(', ');
  return <p className="small" data-testid="whose-turn">Signed one at a time, in list order. <strong>Now signing: {names}</strong></p>;
}

/** Reminders to those who have not signed: their state for everyone, the switch for the initiator while they can still matter. */
function Reminders({ record, initiator, onChanged }: { record: RecordDetailFragment; initiator: boolean; onChanged: () => void }) {
  const [state, setReminders] = useMutation(SetRemindersDocument);
  const open = ['draft', 'pending_confirmation', 'counter_under_review'].includes(record.status);
  if (record.notarization || !open) return null;
  const enabled = record.reminders.enabled;
  const toggle = async () => {
    const result = await setReminders({ id: record.id, enabled: !enabled });
    if (!result.error) onChanged();
  };
  const schedule = record.reminders.everyDays ? `every ${record.reminders.everyDays} days` : 'on the service’s schedule';
  return (
    <div className="reminders">
      <p className="small" id="reminders-state">
        <strong>Reminders:</strong> {enabled ? `on: sent ${schedule} to ${record.signingOrder === 'sequential' ? 'whoever’s turn it is' : 'those who have not signed'}` : 'off'}
      </p>
      {initiator && (
        <button type="button" className="button secondary small" aria-describedby="reminders-state" disabled={state.fetching} onClick={() => void toggle()}>
          {enabled ? 'Turn reminders off' : 'Turn reminders on'}
        </button>
      )}
      <Alert>{describeError(state.error)}</Alert>
    </div>
  );
}
