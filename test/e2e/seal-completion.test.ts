import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { inspectPades } from '../../packages/verifier/src/pades.js';
import { startCertificateAuthority, type CertificateAuthority } from '../support/certificate-authority.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';
import { runOps } from '../support/ops.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'metrics-token-for-the-degraded-seal-test-0123456789';
const sha = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
type LogLine = { level: number; msg: string; recordId?: string; padesLevel?: string; missing?: string[]; timestampFailures?: string[]; validationWarnings?: string[] } & Record<string, unknown>;

/**
 * A seal made while its authorities were down: the timestamp authority answering 500 and the CA's
 * OCSP responder and CRL distribution point 503. The PDF is sealed at the level it can reach, a warn
 * line and a metric say so, `ops status` lists it, and once the authorities answer the completion job
 * (first retry after SEAL_COMPLETION_RETRY_SECONDS) makes the served PDF B-LTA by appending revisions:
 * the first version's hash still verifies, as version 1.
 */
describe('Degraded seals are said, counted, listed, and completed when the authorities answer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-degraded-'));
  let ca: CertificateAuthority;
  let tsa: TimestampAuthorityServer;
  let t: TestApp;

  const document = async (sealed: SealedAgreement): Promise<Buffer | null> => {
    const response = await fetch(`${t.url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } });
    return response.status === 200 ? Buffer.from(await response.arrayBuffer()) : null;
  };
  const verify = (sealed: SealedAgreement, documentHash: string) => t.request('POST', `/api/v1/public/verify/${sealed.reference}`, { body: { document_hash: documentHash } });
  const warnLines = (message: string): LogLine[] =>
    t
      .logs()
      .split('\n')
      .filter((line) => line.includes(message))
      .map((line) => JSON.parse(line) as LogLine);
  const degradedCount = async (level: string): Promise<number> => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const family = parsePrometheusTextFormat(await response.text()).find((f) => f.name === 'rss_seals_degraded_total');
    return Number(family?.metrics.find((m) => m.labels?.level === level)?.value ?? 0);
  };
  const ops = (...args: string[]) => runOps(t.databaseUrl, ...args);
  /** The served PDF once it is no longer `first` (the completion job stored a new version). */
  const nextVersion = (sealed: SealedAgreement, first: Buffer): Promise<Buffer> =>
    waitFor(async () => {
      const bytes = await document(sealed);
      return bytes && sha(bytes) !== sha(first) ? bytes : null;
    }, 30_000);

  beforeAll(async () => {
    ca = await startCertificateAuthority({ name: 'Degraded Test CA' });
    const [seal, tsaIdentity] = await Promise.all([ca.issue({ commonName: 'Degraded Test Seal', kind: 'seal' }), ca.issue({ commonName: 'Degraded Test TSA', kind: 'timestamping' })]);
    tsa = await startTimestampAuthority('grant', { identity: tsaIdentity });
    const p12 = path.join(dir, 'seal.p12');
    fs.writeFileSync(p12, await seal.p12('degraded-password'));
    // The authority's URL carries a credential in its query: it must never reach a log line.
    t = await startTestApp({
      SEAL_P12_PATH: p12,
      SEAL_P12_PASSWORD: 'degraded-password',
      SEAL_TSA_URLS: `${tsa.url}?api_key=tsa-secret-key-123`,
      SEAL_COMPLETION_RETRY_SECONDS: '2',
      SEAL_COMPLETION_RETRY_MAX_SECONDS: '4',
      JOBS_ENABLED: 'true',
      METRICS_TOKEN: TOKEN,
    });
  }, 120_000);
  afterAll(async () => {
    await t?.stop().catch(() => undefined);
    await Promise.all([tsa?.close(), ca?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('with every authority down: B-B, said at warn, counted, listed by ops status; B-LTA once they answer, the first hash still verifying', async () => {
    tsa.down = true;
    ca.revocationDown = true;
    const sealed = await sealTwoPartyAgreement(t, { title: 'Sealed in the dark' }, { initiator: 'dark-a@example.com', party: 'dark-b@example.com' });
    const first = await waitFor(() => document(sealed));
    expect(await inspectPades(first)).toMatchObject({ ok: true, level: 'B-B' });

    const [line] = warnLines('sealed PDF degraded').filter((l) => l.recordId === sealed.id);
    expect(line).toMatchObject({ level: 40, padesLevel: 'B-B', missing: ['timestamp', 'validation_data', 'archive_timestamp'] });
    expect(line!.timestampFailures!.join(' ')).toContain(`${tsa.url}: `);
    expect(t.logs()).not.toContain('tsa-secret-key-123');
    expect(await degradedCount('B-B')).toBe(1);

    // While they stay down, attempts fail and are put off; the PDF stays as it was.
    await waitFor(async () => warnLines('degraded seal not completed yet').some((l) => l.recordId === sealed.id), 30_000);
    expect(sha(await document(sealed) as Buffer)).toBe(sha(first));

    const status = await ops('status', '--json');
    expect(status.code).toBe(0);
    const listed = (JSON.parse(status.stdout) as { degraded_seals: { total: number; items: { agr_reference: string; level: string; missing: string[]; attempts: number }[] } }).degraded_seals;
    expect(listed.items.find((item) => item.agr_reference === sealed.reference)).toMatchObject({ level: 'B-B', missing: ['timestamp', 'validation_data', 'archive_timestamp'] });
    expect((await ops('status')).stdout).toMatch(new RegExp(`Degraded seals.*\\n(.*\\n)*  ${sealed.reference}  B-B  missing timestamp, validation_data, archive_timestamp`));

    tsa.down = false;
    ca.revocationDown = false;
    // The wait doubles from 2 s up to 4 s: the next attempt comes within seconds.
    const completed = await nextVersion(sealed, first);
    const report = await inspectPades(completed);
    expect(report).toMatchObject({ ok: true, level: 'B-LTA', validity: { ok: true } });
    expect(report.timestamps.map((s) => s.kind)).toEqual(['document', 'document']);
    expect(Buffer.from(completed.subarray(0, first.length)).equals(first)).toBe(true);
    expect(warnLines('degraded seal completed').some((l) => l.recordId === sealed.id)).toBe(true);

    // Both versions verify by their hash; the first is version 1, no longer current.
    expect((await verify(sealed, sha(first))).body).toMatchObject({ verdict: 'verified', document_version: { version: 1, current: false, cause: 'sealed' } });
    expect((await verify(sealed, sha(completed))).body).toMatchObject({ verdict: 'verified', document_version: { version: 2, current: true, cause: 'completed' } });
    const after = JSON.parse((await ops('status', '--json')).stdout) as { degraded_seals: { items: { agr_reference: string }[] } };
    expect(after.degraded_seals.items.map((item) => item.agr_reference)).not.toContain(sealed.reference);
  }, 120_000);

  it('with only the revocation servers down: B-T, then B-LTA with their answers in the DSS', async () => {
    ca.revocationDown = true;
    const sealed = await sealTwoPartyAgreement(t, { title: 'Sealed without revocation data' }, { initiator: 'norev-a@example.com', party: 'norev-b@example.com' });
    const first = await waitFor(() => document(sealed));
    const sealedReport = await inspectPades(first);
    expect(sealedReport).toMatchObject({ ok: true, level: 'B-T' });
    expect(sealedReport.dss?.ocspResponses ?? 0).toBe(0);
    const [line] = warnLines('sealed PDF degraded').filter((l) => l.recordId === sealed.id);
    expect(line).toMatchObject({ level: 40, padesLevel: 'B-T', missing: ['validation_data', 'archive_timestamp'] });
    expect(await degradedCount('B-T')).toBe(1);

    ca.revocationDown = false;
    const completed = await nextVersion(sealed, first);
    const report = await inspectPades(completed);
    expect(report).toMatchObject({ ok: true, level: 'B-LTA' });
    expect(report.dss!.ocspResponses).toBeGreaterThan(0);
    expect((await verify(sealed, sha(first))).body).toMatchObject({ verdict: 'verified', document_version: { version: 1, current: false } });
  }, 120_000);
});
