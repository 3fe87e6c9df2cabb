import { useState, type FormEvent } from 'react';
import { useClient, useQuery } from 'urql';
import { Alert, Field, PageTitle } from '../components';
import { FileDrop, formatBytes } from '../file-drop';
import { VerifyHere } from './verify-here';
import { PublicRecordDocument, VerifyArtifactDocument, type VerifyArtifactInput, type VerifyArtifactQuery } from '../graphql/generated';
import { describeError } from '../lib/errors';
import { formatDate, STATUS_LABELS, TYPE_LABELS } from '../lib/format';
import { isPdf, type HashedFile } from '../lib/hash';
import { Link, navigate } from '../router';
import { ChainRecordFacts, IdenticonImage } from '../sealed-artifacts';

/**
 * A dropped PDF is checked by its SHA-256 as `documentHash` (the sealed signed PDF) first, then as
 * `contentHash` (a notarized PDF); every other file goes as `contentHash` (a notarized file).
 */
const DOCUMENT_HASH_SUPPORTED = true;

/** The artifacts to try for a file, most specific first; only digests, never the bytes. */
function artifactsForFile(file: HashedFile): VerifyArtifactInput[] {
  const content = { contentHash: `sha256:${file.sha256}` };
  return DOCUMENT_HASH_SUPPORTED && isPdf(file) ? [{ documentHash: `sha256:${file.sha256}` }, content] : [content];
}

type Result = VerifyArtifactQuery['verifyRecord'];
type Tab = 'file' | 'text' | 'hash' | 'tx';

const TAB_LABELS: Record<Tab, string> = { file: 'File', text: 'Text', hash: 'Hash', tx: 'Transaction' };

const VERDICTS: Record<string, { tone: 'good' | 'warn' | 'bad' | 'neutral'; title: string; text: string }> = {
  verified: { tone: 'good', title: 'Verified', text: 'This matches the sealed record exactly.' },
  matched_not_sealed: { tone: 'warn', title: 'Matches, but not sealed', text: 'This matches the record, but not everyone has signed it (or it ended without a seal).' },
  matched_superseded: { tone: 'warn', title: 'Matches a superseded record', text: 'This matches the record, but a later amendment or cancellation governs now.' },
  no_match: { tone: 'bad', title: 'No match', text: 'This does not match the record. Even a one-character change gives a different hash.' },
  certificate: { tone: 'neutral', title: 'Record found', text: 'The record exists. Check a file or text against it below.' },
  not_found: { tone: 'bad', title: 'Not found', text: 'There is no public record with this reference.' },
};

export function VerifyPage({ reference }: { reference: string | null }) {
  return reference ? <Certificate reference={reference} /> : <FindRecord />;
}

function FindRecord() {
  const [value, setValue] = useState('');
  const go = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = value.trim().toUpperCase();
    if (trimmed) navigate(`/verify/${encodeURIComponent(trimmed)}`);
  };
  return (
    <section className="narrow">
      <PageTitle title="Verify a record">Verify a record</PageTitle>
      <p className="lead">Anyone can check a record by its reference, without an account: see its status, and check that a file or text is exactly what was signed.</p>
      <form className="card" onSubmit={go}>
        <Field label="Record reference" hint="For example AGR-7K3M-9QXD">
          {(props) => <input {...props} type="text" autoCapitalize="characters" spellCheck={false} value={value} onChange={(e) => setValue(e.target.value)} />}
        </Field>
        <button type="submit" className="button primary" disabled={!value.trim()}>Look up</button>
      </form>
    </section>
  );
}

/** What each PAdES level of the sealed PDF means for someone checking it years later. */
const PADES_MEANING: Record<string, string> = {
  'B-B': 'signed by the seal; valid while its certificate is',
  'B-T': 'signed and timestamped by a trusted authority',
  'B-LT': 'signed, timestamped, with the certificates and revocation data needed to check it offline',
  'B-LTA': 'signed, timestamped, with validation data and archive timestamps: verifiable after its certificates expire',
};

/** Which version of the sealed PDF a file was, when it matched by its document hash. */
function documentVersionText(result: { documentVersion?: { version: number; current: boolean } | null; document?: { versions: number } | null }): string {
  const match = result.documentVersion;
  if (!match) return '';
  const of = result.document ? ` of ${result.document.versions}` : '';
  return match.current ? ` (the current PDF, version ${match.version}${of})` : ` (version ${match.version}${of}: an earlier version of the sealed PDF, before an archive timestamp was added)`;
}

function Verdict({ verdict, authority }: { verdict: string; authority: string | null }) {
  const info = VERDICTS[verdict] ?? { tone: 'neutral' as const, title: verdict, text: '' };
  return (
    <div className={`verdict ${info.tone}`} role="status" data-verdict={verdict}>
      <h2>{info.title}</h2>
      <p>{info.text}</p>
      {authority && <p>The record that governs now: <Link href={`/verify/${authority}`}>{authority}</Link></p>}
    </div>
  );
}

function Certificate({ reference }: { reference: string }) {
  const [lookup] = useQuery({ query: PublicRecordDocument, variables: { reference } });
  const client = useClient();
  const [tab, setTab] = useState<Tab>('file');
  const [text, setText] = useState('');
  const [hash, setHash] = useState('');
  const [txHash, setTxHash] = useState('');
  const [file, setFile] = useState<HashedFile | null>(null);
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);

  const check = async (artifacts: VerifyArtifactInput[]) => {
    setChecking(true);
    setError(null);
    setResult(null);
    try {
      let last: Result | null = null;
      for (const artifact of artifacts) {
        const answer = await client.query(VerifyArtifactDocument, { reference, artifact }, { requestPolicy: 'network-only' }).toPromise();
        if (answer.error) return setError(describeError(answer.error));
        last = answer.data?.verifyRecord ?? null;
        if (last?.recordMatch) break;
      }
      setResult(last);
    } finally {
      setChecking(false);
    }
  };
  const onFile = (hashed: HashedFile) => {
    setFile(hashed);
    void check(artifactsForFile(hashed));
  };
  const submitText = (event: FormEvent) => {
    event.preventDefault();
    void check(tab === 'text' ? [{ text }] : tab === 'tx' ? [{ txHash: txHash.trim() }] : [{ contentHash: hash.trim() }]);
  };

  const record = lookup.data?.publicRecord;
  const notFound = lookup.error?.graphQLErrors[0]?.extensions.code === 'not_found';
  // The service could not be reached (offline, down, blocked): the certificate and the service's checks are
  // unavailable, but the check in this browser needs only the reference in the URL, this page and a chain node.
  const unreachable = !lookup.data && !notFound && Boolean(lookup.error?.networkError);

  return (
    <section className="medium">
      <p className="small"><Link href="/verify">← Verify another record</Link></p>
      <PageTitle title={`Verify ${reference}`}>Verify <span className="mono">{reference}</span></PageTitle>
      {notFound && <Verdict verdict="not_found" authority={null} />}
      {!notFound && !unreachable && <Alert>{describeError(lookup.error)}</Alert>}
      {unreachable && (
        <>
          <Alert kind="info">
            <span data-service-unreachable>This service could not be reached, so the record&apos;s certificate cannot be shown. You can still check its sealed PDF in this browser below.</span>
          </Alert>
          <VerifyHere reference={reference} serviceReachable={false} />
        </>
      )}
      {record && lookup.data && (
        <>
          <div className="card">
            <h2>Certificate</h2>
            <dl className="facts">
              <dt>Reference</dt><dd className="mono">{record.agrReference}</dd>
              <dt>Type</dt><dd>{TYPE_LABELS[record.type]}</dd>
              <dt>Status</dt><dd><span className={`badge ${record.status}`}>{STATUS_LABELS[record.status]}</span></dd>
              <dt>Sealed</dt><dd>{record.sealedAt ? formatDate(record.sealedAt) : 'Not sealed'}</dd>
              <dt>Signers</dt><dd>{record.partyCount}</dd>
              {lookup.data.verifyRecord.document && (
                <>
                  <dt>Sealed PDF</dt>
                  <dd>
                    PAdES {lookup.data.verifyRecord.document.padesLevel ?? 'signature'}
                    {PADES_MEANING[lookup.data.verifyRecord.document.padesLevel ?? ''] && <span className="muted small">: {PADES_MEANING[lookup.data.verifyRecord.document.padesLevel ?? '']}</span>}
                  </dd>
                  {lookup.data.verifyRecord.document.certificateSubject && <><dt>Seal certificate</dt><dd>{lookup.data.verifyRecord.document.certificateSubject}</dd></>}
                  {lookup.data.verifyRecord.document.certificateSha256 && <><dt>Certificate SHA-256</dt><dd className="mono small">{lookup.data.verifyRecord.document.certificateSha256}</dd></>}
                  {lookup.data.verifyRecord.document.versions > 1 && <><dt>PDF versions</dt><dd>{lookup.data.verifyRecord.document.versions} (archive timestamps added since the seal; every version verifies)</dd></>}
                </>
              )}
              {record.notarization && (
                <>
                  <dt>Content hash</dt><dd className="mono">{record.notarization.contentHash}</dd>
                  {record.notarization.filename && <><dt>File</dt><dd>{record.notarization.filename}{record.notarization.sizeBytes !== null ? ` (${formatBytes(record.notarization.sizeBytes)})` : ''}</dd></>}
                  {record.notarization.label && <><dt>Label</dt><dd>{record.notarization.label}</dd></>}
                  {record.notarization.text && <><dt>Text</dt><dd className="terms">{record.notarization.text}</dd></>}
                </>
              )}
            </dl>
            {lookup.data.verifyRecord.currentAuthority && lookup.data.verifyRecord.currentAuthority !== record.agrReference && (
              <p className="small">Superseded: the record that governs now is <Link href={`/verify/${lookup.data.verifyRecord.currentAuthority}`}>{lookup.data.verifyRecord.currentAuthority}</Link>.</p>
            )}
            {record.identicon && (
              <div className="artifact">
                <h3>Document identicon</h3>
                <IdenticonImage identicon={record.identicon} />
              </div>
            )}
            {record.blockchain && (
              <div className="artifact">
                <h3>Chain record</h3>
                <ChainRecordFacts chain={record.blockchain} />
              </div>
            )}
            <p className="muted small">A lookup alone proves only that the record exists. To prove a document is the one signed, check it below.</p>
          </div>

          <div className="card">
            <h2>Check a document</h2>
            <div className="tabs" role="tablist" aria-label="What to check">
              {(['file', 'text', 'hash', 'tx'] as const).map((value) => (
                <button key={value} type="button" role="tab" id={`tab-${value}`} aria-controls="check-panel" aria-selected={tab === value} onClick={() => { setTab(value); setResult(null); }}>
                  {TAB_LABELS[value]}
                </button>
              ))}
            </div>
            <div id="check-panel" role="tabpanel" aria-labelledby={`tab-${tab}`}>
              {tab === 'file' ? (
                <>
                  <FileDrop label="Choose a file, or drop it here" hint="It is hashed on this device (SHA-256); the file is never uploaded." onHashed={onFile} />
                  {file && <p className="small muted">{file.name}: <span className="mono">sha256:{file.sha256}</span></p>}
                </>
              ) : (
                <form onSubmit={submitText}>
                  {tab === 'text' ? (
                    <Field label="Text to check" hint="Line breaks and repeated spaces do not matter.">
                      {(props) => <textarea {...props} value={text} onChange={(e) => setText(e.target.value)} />}
                    </Field>
                  ) : tab === 'tx' ? (
                    <Field label="Transaction hash" hint="The anchoring transaction on the chain: 0x and 64 hexadecimal characters">
                      {(props) => <input {...props} type="text" className="mono" spellCheck={false} value={txHash} onChange={(e) => setTxHash(e.target.value)} />}
                    </Field>
                  ) : (
                    <Field label="Content hash" hint="sha256:<hex> or 64 hexadecimal characters">
                      {(props) => <input {...props} type="text" className="mono" spellCheck={false} value={hash} onChange={(e) => setHash(e.target.value)} />}
                    </Field>
                  )}
                  <button type="submit" className="button primary" disabled={checking || !{ text, tx: txHash, hash, file: '' }[tab].trim()}>Check</button>
                </form>
              )}
            </div>
            <Alert>{error}</Alert>
            {checking && <p className="muted" role="status">Checking…</p>}
            {result && <Verdict verdict={result.verdict} authority={result.currentAuthority !== result.agrReference ? result.currentAuthority : null} />}
            {result?.recordMatch && result.matchMethod && <p className="small muted">Matched by {result.matchMethod.replaceAll('_', ' ')}{documentVersionText(result)}.</p>}
          </div>

          {/* "Check it here, without this service": the offline verifier, run in this browser (verify-here.tsx). */}
          {record.type !== 'notarization' && record.sealedAt && <VerifyHere reference={record.agrReference} />}
        </>
      )}
    </section>
  );
}
