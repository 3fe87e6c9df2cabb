import { useEffect, useRef, useState } from 'react';
import { useClient, useQuery, useSubscription } from 'urql';
import { useSession } from './auth';
import { Alert } from './components';
import { formatBytes } from './file-drop';
import {
  RecordActivityFeedDocument,
  RecordArtifactsDocument,
  RecordAuditTrailDocument,
  ShareCardImageDocument,
  type ChainRecordFragment,
  type DocumentIdenticonFragment,
  type RecordAuditTrailQuery,
} from './graphql/generated';
import { describeError } from './lib/errors';
import { formatDate } from './lib/format';
import { Link } from './router';

/** Refetches when the activity feed reports anything about this record (a move, a signature step, an artifact made). */
function useRefreshOnActivity(recordId: string, refetch: () => void): void {
  const [activity] = useSubscription({ query: RecordActivityFeedDocument });
  const latest = activity.data?.recordActivity;
  const current = useRef(refetch);
  current.current = refetch;
  useEffect(() => {
    if (latest?.recordId === recordId) current.current();
  }, [latest, recordId]);
}

const CHAIN_WORDS: Record<ChainRecordFragment['status'], { word: string; text: string }> = {
  pending: { word: 'Pending', text: 'Waiting to be written on the chain.' },
  retrying: { word: 'Retrying', text: 'The chain did not answer; it will try again.' },
  confirmed: { word: 'Confirmed', text: 'Written on the chain.' },
};

export function IdenticonImage({ identicon }: { identicon: DocumentIdenticonFragment }) {
  return (
    <div className="identicon-row">
      {identicon.svgDataUri && <img className="identicon" src={identicon.svgDataUri} alt={identicon.altText} width={64} height={64} />}
      <span className="mono small">{identicon.shortHash}</span>
    </div>
  );
}

/** The chain record as facts: status in words, transaction, block, explorer link, when written, metadata hash. */
export function ChainRecordFacts({ chain }: { chain: ChainRecordFragment }) {
  return (
    <dl className="facts" data-chain-status={chain.status}>
      <dt>Chain</dt>
      <dd>
        <span className={`badge chain-${chain.status}`}>{CHAIN_WORDS[chain.status].word}</span>
        <span className="chain-word muted small">{CHAIN_WORDS[chain.status].text}</span>
      </dd>
      {chain.status === 'retrying' && (
        <><dt>Attempts</dt><dd>{chain.retryCount}{chain.nextRetryAt ? `, next ${formatDate(chain.nextRetryAt)}` : ''}</dd></>
      )}
      {chain.network && <><dt>Network</dt><dd>{chain.network}</dd></>}
      {chain.txHash && (
        <>
          <dt>Transaction</dt>
          <dd className="mono">{chain.explorerUrl ? <a href={chain.explorerUrl} rel="noopener noreferrer" target="_blank">{chain.txHash}</a> : chain.txHash}</dd>
        </>
      )}
      {chain.blockNumber !== null && <><dt>Block</dt><dd>{chain.blockNumber}</dd></>}
      {chain.writtenAt && <><dt>Written</dt><dd>{formatDate(chain.writtenAt)}</dd></>}
      {chain.metadataHash && <><dt>Metadata hash</dt><dd className="mono">{chain.metadataHash}</dd></>}
    </dl>
  );
}

/** Fetches the sealed PDF with the bearer header (never a token in a URL) and saves it through a blob URL. */
async function downloadDocument(recordId: string, token: string): Promise<string | null> {
  const response = await fetch(`/api/v1/agreements/${encodeURIComponent(recordId)}/document`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status === 409) return 'The signed PDF is still being made. Try again in a few seconds.';
  if (!response.ok) return `The PDF could not be downloaded (${response.status}).`;
  const disposition = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '');
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = disposition?.[1] ?? 'sealed.pdf';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return null;
}

function ShareCard({ recordId, reference }: { recordId: string; reference: string }) {
  const client = useClient();
  const [image, setImage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const show = async () => {
    setBusy(true);
    const answer = await client.query(ShareCardImageDocument, { id: recordId }, { requestPolicy: 'network-only' }).toPromise();
    setBusy(false);
    const file = answer.data?.shareCardFile;
    if (!file) return setError(describeError(answer.error) ?? 'The card could not be loaded.');
    setImage(`data:${file.contentType};base64,${file.contentBase64}`);
  };
  if (image) return <img className="share-card" src={image} alt={`Share card of ${reference}`} />;
  return (
    <>
      <button type="button" className="button secondary" disabled={busy} onClick={() => void show()}>{busy ? 'Loading card…' : 'View the share card'}</button>
      <Alert>{error}</Alert>
    </>
  );
}

function HowToVerify({ reference, hasPdf }: { reference: string; hasPdf: boolean }) {
  return (
    <div className="how-to-verify">
      <h3>How anyone can verify this</h3>
      <ul className="small">
        <li>Open the public page <Link href={`/verify/${reference}`}>/verify/{reference}</Link>: no account needed.</li>
        <li>{hasPdf ? 'Drop the signed PDF there' : 'Drop the notarized file there'}: it is hashed on their device and compared with the sealed record.</li>
        {hasPdf && <li>Or check it offline against any node of the chain: <code>npx record-verify sealed.pdf --rpc &lt;chain node URL&gt;</code></li>}
      </ul>
    </div>
  );
}

/** The sealed record's artifacts: PDF download, share card, document identicon, chain record, how to verify. */
export function SealedArtifacts({ recordId }: { recordId: string }) {
  const [result, refetch] = useQuery({ query: RecordArtifactsDocument, variables: { id: recordId } });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useRefreshOnActivity(recordId, reload);
  const { session } = useSession();
  const [downloadError, setDownloadError] = useState<string | null>(null);
  const [downloading, setDownloading] = useState(false);
  const record = result.data?.record;
  if (!record) return <Alert>{describeError(result.error)}</Alert>;
  const hasPdf = record.type !== 'notarization';
  const download = async () => {
    if (!session) return;
    setDownloading(true);
    try {
      setDownloadError(await downloadDocument(record.id, session.token));
    } finally {
      setDownloading(false);
    }
  };

  return (
    <div className="card" data-slot="sealed-artifacts">
      <h2>Sealed artifacts</h2>
      {hasPdf && (
        record.document ? (
          <div className="artifact">
            <button type="button" className="button primary" disabled={downloading} onClick={() => void download()}>Download the signed PDF</button>
            <dl className="facts">
              <dt>File</dt><dd>{record.document.filename} ({formatBytes(record.document.byteSize)})</dd>
              <dt>Document hash</dt><dd className="mono" data-document-hash>{record.document.hash}</dd>
              {record.document.level && <><dt>Signature</dt><dd>PAdES {record.document.level}</dd></>}
              <dt>Made</dt><dd>{formatDate(record.document.generatedAt)}</dd>
            </dl>
            <Alert>{downloadError}</Alert>
          </div>
        ) : (
          <p className="muted" role="status" data-artifact="pdf-pending">The signed PDF is being made. This page updates when it is ready.</p>
        )
      )}
      {record.identicon && (
        <div className="artifact">
          <h3>Document identicon</h3>
          <IdenticonImage identicon={record.identicon} />
        </div>
      )}
      {record.shareCard?.available && (
        <div className="artifact">
          <h3>Share card</h3>
          <ShareCard recordId={record.id} reference={record.agrReference} />
        </div>
      )}
      <div className="artifact">
        <h3>Chain record</h3>
        {record.blockchain ? <ChainRecordFacts chain={record.blockchain} /> : <p className="muted small">Not anchored yet.</p>}
      </div>
      <HowToVerify reference={record.agrReference} hasPdf={hasPdf} />
    </div>
  );
}

type Entry = RecordAuditTrailQuery['recordAuditTrail']['entries'][number];

const MOVE_WORDS: Record<string, string> = {
  create: 'Created',
  submit: 'Submitted for signatures',
  execution_started: 'Started signing',
  method_started: 'Started a signature method',
  method_satisfied: 'Completed a signature method',
  finalized: 'Signed',
  complete_signatures: 'All signatures complete',
};

function describeMove(entry: Entry): string {
  const words = MOVE_WORDS[entry.move] ?? entry.move.replaceAll('_', ' ');
  return [words, entry.methodType ? `(${entry.methodType.replaceAll('_', ' ')})` : null, entry.toStatus ? `→ ${entry.toStatus.replaceAll('_', ' ')}` : null].filter(Boolean).join(' ');
}

const shortHash = (hash: string) => hash.replace(/^sha256:/, '').slice(0, 8);

/** The record's hash-chained audit trail as a table, with the server's chain check. */
export function AuditTrail({ recordId }: { recordId: string }) {
  const [result, refetch] = useQuery({ query: RecordAuditTrailDocument, variables: { id: recordId } });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useRefreshOnActivity(recordId, reload);
  const trail = result.data?.recordAuditTrail;
  return (
    <div className="card" data-slot="audit-trail">
      <div className="party-head">
        <h2>History</h2>
        {trail && (
          <span className={`badge ${trail.chainValid ? 'sealed' : 'declined'}`} data-chain-valid={String(trail.chainValid)}>
            {trail.chainValid ? 'Chain intact' : 'Chain broken'}
          </span>
        )}
      </div>
      <Alert>{describeError(result.error)}</Alert>
      {trail && (
        <div className="table-wrap">
          <table className="audit-table">
            <caption className="visually-hidden">Audit trail, oldest first</caption>
            <thead>
              <tr><th scope="col">Time</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Version</th><th scope="col">Hash</th></tr>
            </thead>
            <tbody>
              {trail.entries.map((entry) => (
                <tr key={entry.seq}>
                  <td><span className="cell-label">Time: </span>{formatDate(entry.at)}</td>
                  <td><span className="cell-label">Who: </span>{entry.actorRole}</td>
                  <td className="audit-what"><span className="cell-label">What: </span>{describeMove(entry)}</td>
                  <td className="audit-version"><span className="cell-label">Version: </span>{entry.version}</td>
                  <td className="mono" title={entry.entryHash}><span className="cell-label">Hash: </span>{shortHash(entry.entryHash)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {trail && <p className="muted small">Each entry includes the hash of the one before, so changing any entry breaks the chain.</p>}
    </div>
  );
}
