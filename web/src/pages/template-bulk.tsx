import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { Alert, Field, PageTitle } from '../components';
import { BulkSendDocument, BulkSendProgressDocument, StartBulkSendDocument, TemplateDocument, type BulkSendRowFragment, type TemplateRowFragment } from '../graphql/generated';
import { csvText, saveText } from '../lib/csv';
import { describeError } from '../lib/errors';
import { formatDate } from '../lib/format';
import { bulkCsvColumns, templateTypeLabel } from '../lib/templates';
import { Link, useQueryParams } from '../router';
import { TemplateUnavailable } from './templates';

/** The service reads up to this many rows from one file. */
const MAX_ROWS = 1000;

/**
 * One template to many people: a CSV file with a row per record, then the send's progress pushed live
 * and, once done, the rows that failed with their reasons as a CSV made on this device. The send's id
 * stays in the address, so a reload (or a second tab) follows the same send.
 */
export function BulkSendPage({ id }: { id: string }) {
  const [result] = useQuery({ query: TemplateDocument, variables: { id } });
  const params = useQueryParams();
  // undefined: none chosen here yet (the address says); null: a new file asked for.
  const [chosen, setChosen] = useState<string | null | undefined>(undefined);
  const sendId = chosen === undefined ? params.get('send') : chosen;
  const choose = (next: string | null) => {
    // The address names the send, so that a reload follows it (the path is unchanged, so the page re-renders by state).
    history.replaceState(null, '', `/templates/${id}/bulk${next ? `?send=${encodeURIComponent(next)}` : ''}`);
    setChosen(next);
  };
  const template = result.data?.template;
  if (!template) {
    return <TemplateUnavailable title="Bulk send" fetching={result.fetching} error={result.error} />;
  }
  return (
    <section className="medium">
      <PageTitle title={`Bulk send ${template.name}`}>Bulk send {template.name}</PageTitle>
      <div className="record-meta">
        <span>{templateTypeLabel(template.recordType)}</span>
        <span>Version {template.version}</span>
      </div>
      {sendId ? <BulkSendProgress template={template} sendId={sendId} onAgain={() => choose(null)} /> : <BulkSendForm template={template} onStarted={choose} />}
    </section>
  );
}

function BulkSendForm({ template, onStarted }: { template: TemplateRowFragment; onStarted: (sendId: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [started, start] = useMutation(StartBulkSendDocument);
  const columns = bulkCsvColumns(template);
  const header = columns.join(',');
  const slug = template.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'template';

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    const result = await start({ templateId: template.id, input: { csv: await file.text() } });
    if (result.data) onStarted(result.data.startBulkSend.id);
  };

  return (
    <form onSubmit={(event) => void send(event)} noValidate>
      <div className="card">
        <h2>The file</h2>
        <p>One row per record, up to {MAX_ROWS} rows, with this header line:</p>
        {/* Focusable: a long header scrolls sideways, and keyboard users must reach all of it. */}
        <div className="csv-header" role="region" aria-label="Expected header line" tabIndex={0}><code>{header}</code></div>
        <p className="muted small">
          Each field by its name ({template.fields.map((field) => `${field.name}: ${field.label}`).join('; ') || 'none'});
          then for each role in order ({template.parties.map((party, index) => `${index + 1}: ${party.label}`).join(', ') || 'none'}) the person’s name and
          contact (an email address), and optionally the contact’s type.
        </p>
        <button type="button" className="button secondary small" onClick={() => saveText(`${slug}-bulk-send.csv`, csvText(columns))}>Download a CSV template</button>
      </div>
      <Field label="CSV file" hint="The rows are checked before anything is created; a malformed file is refused as a whole.">
        {(props) => <input {...props} type="file" accept=".csv,text/csv" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />}
      </Field>
      <p className="muted small">Each row makes a draft in your records, for you to sign and submit (sending them on at once takes an API key: see the API documentation).</p>
      <Alert>{describeError(started.error)}</Alert>
      <div className="actions">
        <button type="submit" className="button primary" disabled={!file || started.fetching}>{started.fetching ? 'Sending…' : 'Start bulk send'}</button>
        <Link className="button secondary" href={`/templates/${template.id}`}>Back to the template</Link>
      </div>
    </form>
  );
}

function BulkSendProgress({ template, sendId, onAgain }: { template: TemplateRowFragment; sendId: string; onAgain: () => void }) {
  const [read, refetch] = useQuery({ query: BulkSendDocument, variables: { id: sendId } });
  const [live] = useSubscription({ query: BulkSendProgressDocument, variables: { id: sendId } });
  const pushed = live.data?.bulkSendProgress;
  const stored = read.data?.bulkSend;
  // The newest of the two: the subscription may have started after the send moved on, or before the read answered.
  const send = pushed && (!stored || pushed.processed >= stored.processed) ? pushed : stored;
  const done = send ? isDone(send) : false;
  useEffect(() => {
    // The last push may be missed between the read and the subscription's start: read once more at the end.
    if (done) refetch({ requestPolicy: 'network-only' });
  }, [done, refetch]);

  if (!send) {
    return (
      <>
        <Alert>{describeError(read.error)}</Alert>
        {read.fetching && <p>Loading the bulk send…</p>}
      </>
    );
  }
  const percent = send.total === 0 ? 100 : Math.round((send.processed / send.total) * 100);
  return (
    <div className="card">
      <h2>{done ? 'Bulk send finished' : 'Sending…'}</h2>
      <div className="bulk-progress">
        <label htmlFor="bulk-progress">Rows processed</label>
        <progress id="bulk-progress" max={Math.max(send.total, 1)} value={send.total === 0 ? 1 : send.processed} aria-valuetext={`${send.processed} of ${send.total} rows (${percent}%)`} />
        <span className="progress-text" aria-hidden="true">{percent}%</span>
      </div>
      <dl className="facts" aria-label="Counts" aria-live="polite">
        <dt>Rows</dt><dd>{send.processed} of {send.total}</dd>
        <dt>Created</dt><dd>{send.created}</dd>
        {send.submit && <><dt>Submitted</dt><dd>{send.submitted}</dd></>}
        <dt>Failed</dt><dd>{send.failed}</dd>
        <dt>Started</dt><dd>{formatDate(send.createdAt)}</dd>
        {send.finishedAt && <><dt>Finished</dt><dd>{formatDate(send.finishedAt)}</dd></>}
      </dl>
      {done && <FailedRows send={send} template={template} />}
      <div className="actions">
        <Link className="button secondary" href="/">Open your records</Link>
        <button type="button" className="button secondary" onClick={onAgain}>Send another file</button>
      </div>
    </div>
  );
}

function FailedRows({ send, template }: { send: BulkSendRowFragment; template: TemplateRowFragment }) {
  if (send.failures.length === 0) return <Alert kind="success">Every row made its record.</Alert>;
  const reasons = (failure: BulkSendRowFragment['failures'][number]) => failure.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
  const download = () => saveText(`${template.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-failed-rows.csv`, csvText(['row', 'reasons'], send.failures.map((failure) => [failure.row, reasons(failure)])));
  return (
    <>
      <h3 className="bulk-failures">Rows that failed</h3>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Rows that failed and why</caption>
          <thead><tr><th scope="col">Row</th><th scope="col">Reasons</th></tr></thead>
          <tbody>
            {send.failures.map((failure) => (
              <tr key={failure.row}><td>{failure.row}</td><td>{reasons(failure)}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" className="button secondary" onClick={download}>Download the failed rows (CSV)</button>
    </>
  );
}

function isDone(send: BulkSendRowFragment): boolean {
  return send.status === 'completed';
}
