import { useState } from 'react';
import { Alert, Field } from '../components';
import { FileDrop } from '../file-drop';

type LocalCheck = { check: string; ok: boolean; detail: string };
type Outcome = { verdict: 'verified' | 'failed'; reason: string | null; checks: LocalCheck[]; level: string | null };

const CHECK_LABELS: Record<string, string> = {
  signature: 'Signature and timestamps',
  seal_key: 'Seal key',
  validity: 'Certificates in time',
  trust: 'Trust in the certificates',
  metadata: 'Sealed metadata',
  anchor: 'Chain anchor',
  record: 'This record',
};

/** The operator's public chain node (CHAIN_PUBLIC_RPC_URL), as the server wrote it into the page. */
function configuredRpc(): string {
  return document.querySelector('meta[name="chain-public-rpc"]')?.getAttribute('content') ?? '';
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * "Check it here": the offline verifier (packages/verifier, the code of record-verify) runs in this browser
 * on the dropped PDF, so the answer does not depend on trusting this service: the signature and
 * timestamps over the file's bytes, the embedded sealed metadata and its hash, and the anchor read from
 * a chain node the person chooses (with the Merkle proof rebuilt from the transaction's events). The
 * page asks this service nothing for it; the verifier's code is loaded when a file is dropped. It needs
 * only the reference in the URL, the page's static files and the chain node, so the verify page offers it
 * even when the service cannot be reached (`serviceReachable` false: no certificate above to point to).
 */
export function VerifyHere({ reference, serviceReachable = true }: { reference: string; serviceReachable?: boolean }) {
  const [rpc, setRpc] = useState(configuredRpc);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async (file: File) => {
    setBusy(true);
    setOutcome(null);
    setError(null);
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const { verifySealedPdf } = await import('../../../packages/verifier/src/verify.js');
      const rpcUrl = rpc.trim();
      const report = await verifySealedPdf(bytes, { rpcUrl: rpcUrl || 'about:blank' });
      const checks: LocalCheck[] = report.checks.map((c) => ({ ...c }));
      const anchor = checks.find((c) => c.check === 'anchor');
      const allowed = originOf(configuredRpc());
      if (anchor && !anchor.ok) {
        if (!rpcUrl) anchor.detail = 'no chain node given: enter a JSON-RPC URL of the chain the record was anchored on';
        else if (originOf(rpcUrl) !== allowed) anchor.detail += `. This page may connect only to ${allowed ?? 'this service'}; to use another node, run record-verify`;
      }
      if (report.reference !== undefined) {
        const same = (report.reference ?? '').toUpperCase() === reference.toUpperCase();
        checks.push({
          check: 'record',
          ok: same,
          detail: same ? `the PDF is the sealed record ${reference}` : `the PDF is the sealed record ${report.reference ?? '(unnamed)'}, not ${reference}`,
        });
      }
      const failed = checks.find((c) => !c.ok);
      setOutcome({ verdict: failed ? 'failed' : 'verified', reason: failed ? `${CHECK_LABELS[failed.check] ?? failed.check}: ${failed.detail}` : null, checks, level: report.pades?.level ?? null });
    } catch (e) {
      setError(`The PDF could not be checked here: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="card">
      <h2>Check it here, without this service</h2>
      <p className="small">
        Your browser checks the sealed PDF itself with the code of <code>record-verify</code>: nothing is uploaded, and this service is not asked. The anchor is read from
        the chain node below.
      </p>
      <Field label="Chain node (JSON-RPC URL)" hint="Any node of the chain the record was anchored on; this page may only reach the operator's public node.">
        {(props) => <input {...props} type="url" className="mono" spellCheck={false} value={rpc} onChange={(e) => setRpc(e.target.value)} />}
      </Field>
      <FileDrop label="Choose the sealed PDF, or drop it here" hint="Checked in this browser: nothing is uploaded, and this service is not asked." onFile={run} />
      {busy && <p className="muted" role="status">Checking in this browser…</p>}
      <Alert>{error}</Alert>
      {outcome && (
        <>
          <div className={`verdict ${outcome.verdict === 'verified' ? 'good' : 'bad'}`} role="status" data-local-verdict={outcome.verdict}>
            <strong>{outcome.verdict === 'verified' ? 'Verified in this browser' : 'Not verified'}</strong>
            {outcome.reason ? <p data-local-reason>{outcome.reason}</p> : <p>Every check that ran here holds{outcome.level ? ` (PAdES ${outcome.level})` : ''}.</p>}
          </div>
          <ul className="local-checks" aria-label="Checks run in this browser">
            {outcome.checks.map((c) => (
              <li key={c.check} data-check={c.check} data-ok={String(c.ok)}>
                <span className={`badge ${c.check === 'trust' ? 'unchecked' : c.ok ? 'sealed' : 'declined'}`}>{c.check === 'trust' ? 'Not checked' : c.ok ? 'Holds' : 'Fails'}</span>{' '}
                <strong>{CHECK_LABELS[c.check] ?? c.check}</strong>: <span className="small">{c.detail}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      <p className="small muted" data-not-checked>
        Not checked here: trust in the seal certificate and the timestamp authorities (this page trusts no certificate; the <code>record-verify</code> command checks them
        against the certificates you trust),
        and whether a later amendment or cancellation governs now ({serviceReachable ? 'the certificate above says so, from this service' : 'this page shows it, from this service, when the service can be reached'}).
      </p>
    </div>
  );
}
