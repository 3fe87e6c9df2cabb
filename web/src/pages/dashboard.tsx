import { useEffect, useMemo, useState } from 'react';
import { useQuery, useSubscription } from 'urql';
import { Alert, Field, PageTitle, Progress } from '../components';
import { MyRecordsDocument, RecordActivityFeedDocument, type RecordRowFragment, type RecordStatus, type RecordType, type TeamRowFragment } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate, signatureProgress, STATUS_LABELS, TYPE_LABELS } from '../lib/format';
import { Link } from '../router';
import { useWorkspace } from '../teams';

const PAGE_SIZE = 10;

export function recordTitle(record: Pick<RecordRowFragment, 'title' | 'type' | 'notarization'>): string {
  return record.title ?? record.notarization?.label ?? record.notarization?.filename ?? `Untitled ${TYPE_LABELS[record.type].toLowerCase()}`;
}

function matches(record: RecordRowFragment, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  const haystack = [recordTitle(record), record.agrReference, ...record.parties.map((party) => party.displayName ?? '')].join(' ').toLowerCase();
  return haystack.includes(needle);
}

/**
 * The records of the selected workspace (mine, or a team's) of every type, filtered and paged, kept
 * current by the recordActivity subscription.
 */
export function DashboardPage() {
  const { team, ready } = useWorkspace();
  // Keyed by workspace: another workspace starts on its first page with no filters.
  return <WorkspaceRecords key={team?.id ?? 'personal'} team={team} ready={ready} />;
}

function WorkspaceRecords({ team, ready }: { team: TeamRowFragment | null; ready: boolean }) {
  const teamId = team?.id;
  const [status, setStatus] = useState<RecordStatus | ''>('');
  const [type, setType] = useState<RecordType | ''>('');
  const [text, setText] = useState('');
  const [offset, setOffset] = useState(0);
  const [flashed, setFlashed] = useState<string | null>(null);
  const variables = useMemo(
    () => ({ limit: PAGE_SIZE, offset, ...(status ? { status } : {}), ...(type ? { type } : {}), ...(teamId ? { teamId } : {}) }),
    [offset, status, type, teamId],
  );
  const [result, refetch] = useQuery({ query: MyRecordsDocument, variables, pause: !ready });
  const [activity] = useSubscription({ query: RecordActivityFeedDocument });

  const latest = activity.data?.recordActivity;
  useEffect(() => {
    if (!latest) return;
    refetch({ requestPolicy: 'network-only' });
    setFlashed(latest.recordId);
  }, [latest, refetch]);

  const page = result.data?.myRecords;
  const records = (page?.records ?? []).filter((record) => matches(record, text));
  const total = page?.total ?? 0;

  return (
    <section>
      <div className="page-head">
        {team ? <PageTitle title={`${team.name} records`}>Records of {team.name}</PageTitle> : <PageTitle title="Your records">Your records</PageTitle>}
        <Link className="button primary" href="/records/new">New record</Link>
      </div>
      <form className="filters" role="search" aria-label="Filter records" onSubmit={(event) => event.preventDefault()}>
        <Field label="Search this page" hint="Title, reference or participant">
          {(props) => <input {...props} type="search" value={text} onChange={(e) => setText(e.target.value)} />}
        </Field>
        <Field label="Status">
          {(props) => (
            <select {...props} value={status} onChange={(e) => { setStatus(e.target.value as RecordStatus | ''); setOffset(0); }}>
              <option value="">All statuses</option>
              {Object.entries(STATUS_LABELS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
            </select>
          )}
        </Field>
        <Field label="Type">
          {(props) => (
            <select {...props} value={type} onChange={(e) => { setType(e.target.value as RecordType | ''); setOffset(0); }}>
              <option value="">All types</option>
              {Object.entries(TYPE_LABELS).map(([value, label]) => <option key={value} value={value}>{label}</option>)}
            </select>
          )}
        </Field>
      </form>
      <Alert>{describeError(result.error)}</Alert>
      <p className="visually-hidden" aria-live="polite">{latest ? `Record ${latest.recordId} changed: ${latest.event.replace(/_/g, ' ')}` : ''}</p>
      {page && records.length === 0 ? (
        <div className="card empty">
          {total === 0 && !status && !type ? (
            <>
              <p>{team ? `${team.name} has no records yet.` : 'You have no records yet.'}</p>
              <Link className="button primary" href="/records/new">Create your first record</Link>
            </>
          ) : (
            <p>No records match these filters.</p>
          )}
        </div>
      ) : (
        <ul className="record-list" aria-label="Records" aria-busy={result.fetching}>
          {records.map((record) => {
            const progress = signatureProgress(record.parties);
            return (
              <li key={record.id} className={flashed === record.id ? 'flash' : undefined} data-record={record.agrReference}>
                <div>
                  <Link className="record-title" href={`/records/${record.agrReference}`}>{recordTitle(record)}</Link>
                  <div className="record-meta">
                    <span className="mono">{record.agrReference}</span>
                    <span>{TYPE_LABELS[record.type]}</span>
                    <span>Created {formatDate(record.createdAt)}</span>
                  </div>
                </div>
                <div className="record-side">
                  <span className={`badge ${record.status}`}>{STATUS_LABELS[record.status]}</span>
                  <Progress signed={progress.signed} total={progress.total} />
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {page && total > PAGE_SIZE && (
        <nav className="pager" aria-label="Pages">
          <button type="button" className="button secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>Previous</button>
          <span className="muted">{offset + 1}–{Math.min(offset + PAGE_SIZE, total)} of {total}</span>
          <button type="button" className="button secondary" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>Next</button>
        </nav>
      )}
    </section>
  );
}
