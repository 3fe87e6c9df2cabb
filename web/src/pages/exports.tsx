import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { Alert, Field, PageTitle } from '../components';
import {
  CreateExportDocument,
  ExportProgressDocument,
  IssueExportDownloadDocument,
  RecordExportsDocument,
  type ExportPart,
  type ExportStatus,
  type RecordExportRowFragment,
} from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate, STATUS_LABELS } from '../lib/format';
import { useWorkspace } from '../teams';

const PART_LABELS: Record<ExportPart, string> = { pdf: 'Signed PDFs', audit_trail: 'Audit trails', sealed_metadata: 'Sealed metadata' };
const PARTS = Object.keys(PART_LABELS) as ExportPart[];
const EXPORT_STATUS_LABELS: Record<ExportStatus, string> = { queued: 'Queued', running: 'Preparing', ready: 'Ready', failed: 'Failed', expired: 'Expired' };
const EXPORTABLE = ['sealed', 'superseded'] as const;
/** Every export lists Record under its typename: a new one makes the list read again. */
const EXPORTS_CONTEXT = { additionalTypenames: ['RecordExport'] };

/**
 * Many records in one ZIP: choose which (status, dates, team) and what of each (PDF, audit trail, sealed
 * metadata); each export's progress is pushed live, and a ready one downloads through a single-use link.
 */
export function ExportsPage() {
  const workspace = useWorkspace();
  const team = workspace.team;
  const [list, refetch] = useQuery({ query: RecordExportsDocument, variables: team ? { teamId: team.id } : {}, pause: !workspace.ready, context: EXPORTS_CONTEXT });
  const exports = list.data?.recordExports ?? [];
  return (
    <section>
      <PageTitle title="Exports">{team ? `Exports of ${team.name}` : 'Exports'}</PageTitle>
      <p className="lead">Download many records at once as one ZIP: each sealed record’s signed PDF, its audit trail and sealed metadata, with a <code>manifest.csv</code> that <code>record-verify --manifest</code> checks offline.</p>
      <div className="grid-2">
        <CreateExport defaultTeamId={team?.id ?? ''} onCreated={() => refetch({ requestPolicy: 'network-only' })} />
        <div>
          <h2>Your exports</h2>
          <Alert>{describeError(list.error)}</Alert>
          {list.data && exports.length === 0 ? (
            <p className="card empty">No exports yet.</p>
          ) : (
            <ul className="record-list" aria-label="Exports" aria-busy={list.fetching}>
              {exports.map((item) => <ExportItem key={item.id} item={item} />)}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}

function CreateExport({ defaultTeamId, onCreated }: { defaultTeamId: string; onCreated: () => void }) {
  const workspace = useWorkspace();
  const [status, setStatus] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [owner, setOwner] = useState<string | null>(null);
  const teamId = owner ?? defaultTeamId;
  const [include, setInclude] = useState<Set<ExportPart>>(() => new Set(PARTS));
  const [created, create] = useMutation(CreateExportDocument);
  const toggle = (part: ExportPart, on: boolean) => {
    const next = new Set(include);
    if (on) next.add(part);
    else next.delete(part);
    setInclude(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({
      input: {
        ...(status ? { status } : {}),
        // Whole days in the person's own time zone: from the start of `from` to the end of `to`.
        ...(from ? { from: new Date(`${from}T00:00:00`).toISOString() } : {}),
        ...(to ? { to: new Date(`${to}T23:59:59.999`).toISOString() } : {}),
        ...(teamId ? { teamId } : {}),
        include: PARTS.filter((part) => include.has(part)),
      },
    }, EXPORTS_CONTEXT);
    if (result.data) onCreated();
  };
  return (
    <form className="card" onSubmit={(event) => void submit(event)} noValidate>
      <h2>New export</h2>
      <Field label="Status" hint="Sealed records, and sealed ones a later record superseded: only they have signed PDFs and sealed metadata.">
        {(props) => (
          <select {...props} value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Sealed or superseded</option>
            {EXPORTABLE.map((value) => <option key={value} value={value}>{STATUS_LABELS[value]} only</option>)}
          </select>
        )}
      </Field>
      <div className="two-fields">
        <Field label="Sealed from (optional)">
          {(props) => <input {...props} type="date" value={from} onChange={(e) => setFrom(e.target.value)} />}
        </Field>
        <Field label="Sealed until (optional)">
          {(props) => <input {...props} type="date" value={to} onChange={(e) => setTo(e.target.value)} />}
        </Field>
      </div>
      {workspace.teams.length > 0 && (
        <Field label="Records of">
          {(props) => (
            <select {...props} value={teamId} onChange={(e) => setOwner(e.target.value)}>
              <option value="">You (personal)</option>
              {workspace.teams.map((candidate) => <option key={candidate.id} value={candidate.id}>{candidate.name}</option>)}
            </select>
          )}
        </Field>
      )}
      <fieldset>
        <legend>Include for each record</legend>
        {PARTS.map((part) => (
          <label className="check" key={part}><input type="checkbox" checked={include.has(part)} onChange={(e) => toggle(part, e.target.checked)} /> {PART_LABELS[part]}</label>
        ))}
      </fieldset>
      <Alert>{describeError(created.error)}</Alert>
      <button type="submit" className="button primary" disabled={created.fetching}>{created.fetching ? 'Starting…' : 'Start export'}</button>
    </form>
  );
}

function ExportItem({ item }: { item: RecordExportRowFragment }) {
  const working = item.status === 'queued' || item.status === 'running';
  const [live] = useSubscription({ query: ExportProgressDocument, variables: { id: item.id }, pause: !working });
  const pushed = live.data?.exportProgress;
  const current = pushed && pushed.processed >= item.processed ? pushed : item;
  const status = current.status;
  const [issued, issue] = useMutation(IssueExportDownloadDocument);
  const download = async () => {
    const result = await issue({ id: current.id });
    const url = result.data?.issueExportDownload.url;
    // A single-use link: followed at once, never kept.
    if (url) location.assign(url);
  };
  const percent = current.total === 0 ? (status === 'ready' ? 100 : 0) : Math.round((current.processed / current.total) * 100);
  const name = `Export of ${formatDate(current.createdAt)}`;
  return (
    <li data-export={current.id}>
      <div>
        <strong className="record-title">{name}</strong>
        <div className="record-meta">
          <span>{current.include.map((part) => PART_LABELS[part]).join(', ')}</span>
          <span>{current.total === 1 ? '1 record' : `${current.total} records`}</span>
          {current.expiresAt && status === 'ready' && <span>Until {formatDate(current.expiresAt)}</span>}
        </div>
        {(working || status === 'ready') && (
          <div className="bulk-progress">
            <progress max={Math.max(current.total, 1)} value={current.total === 0 ? (status === 'ready' ? 1 : 0) : current.processed} aria-label={`${name}: records written`}
              aria-valuetext={`${current.processed} of ${current.total} records (${percent}%)`} />
            <span className="progress-text">{current.processed} of {current.total}</span>
          </div>
        )}
        <Alert>{describeError(issued.error)}</Alert>
      </div>
      <div className="record-side">
        <span className={`badge export-${status}`}>{EXPORT_STATUS_LABELS[status]}</span>
        {status === 'ready' && (
          <button type="button" className="button primary small" disabled={issued.fetching} onClick={() => void download()}>
            Download<span className="visually-hidden"> {name}</span>
          </button>
        )}
      </div>
    </li>
  );
}
