import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inspectPades } from '../../packages/verifier/src/pades.js';
import { startCertificateAuthority, type CertificateAuthority, type IssuedIdentity } from '../support/certificate-authority.js';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { ManualClock } from '../support/clock.js';
import { waitFor } from '../support/wait.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';

const sha = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const DAY = 86_400_000;

describe('Archive timestamps: a B-LTA sealed PDF is renewed before its newest timestamp\'s certificate expires', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-archive-'));
  let ca: CertificateAuthority;
  let shortTsa: IssuedIdentity;
  let first: TimestampAuthorityServer;
  let second: TimestampAuthorityServer;
  let t: TestApp;
  let sealed: SealedAgreement;
  let db: pg.Client;

  const document = async (): Promise<{ bytes: Buffer; etag: string | null }> => {
    const response = await fetch(`${t.url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } });
    if (response.status !== 200) throw new Error(`document: ${response.status}`);
    return { bytes: Buffer.from(await response.arrayBuffer()), etag: response.headers.get('etag') };
  };
  const verify = (documentHash: string) => t.request('POST', `/api/v1/public/verify/${sealed.reference}`, { body: { document_hash: documentHash } });

  beforeAll(async () => {
    ca = await startCertificateAuthority({ name: 'Archive Test CA' });
    const [seal, longTsa] = await Promise.all([ca.issue({ commonName: 'Archive Test Seal', kind: 'seal' }), ca.issue({ commonName: 'Long-lived TSA', kind: 'timestamping', notAfter: new Date(Date.now() + 5 * 365 * DAY) })]);
    // The authority the seal gets first: its certificate expires in 30 days, well inside the renewal window.
    shortTsa = await ca.issue({ commonName: 'Short-lived TSA', kind: 'timestamping', notAfter: new Date(Date.now() + 30 * DAY) });
    [first, second] = await Promise.all([startTimestampAuthority('grant', { identity: shortTsa }), startTimestampAuthority('grant', { identity: longTsa })]);
    const p12 = path.join(dir, 'seal.p12');
    fs.writeFileSync(p12, await seal.p12('archive-password'));
    // Jobs off: the test makes the PDF and runs the renewal itself, so no hourly run renews it before the test looks.
    t = await startTestApp({ SEAL_P12_PATH: p12, SEAL_P12_PASSWORD: 'archive-password', SEAL_TSA_URLS: `${first.url},${second.url}`, ARCHIVE_RENEW_BEFORE_DAYS: '365' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'arch@example.com', party: 'ive@example.com' });
    await t.app.services.sealArtifacts.make(sealed.id);
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop().catch(() => undefined);
    await Promise.all([first?.close(), second?.close(), ca?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('adds a document timestamp as a new revision; every version verifies by its hash; the renewed PDF outlives the first authority', async () => {
    const before = await document();
    const sealedReport = await inspectPades(before.bytes);
    expect(sealedReport).toMatchObject({ ok: true, level: 'B-LTA' });
    expect(sealedReport.timestamps.map((s) => [s.kind, s.authority?.subject])).toEqual([['signature', 'CN=Short-lived TSA'], ['document', 'CN=Short-lived TSA']]);
    const [row] = (await db.query(`select archive_expires_at, level, seal_certificate_subject from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [sealed.id])).rows;
    expect(row).toMatchObject({ level: 'B-LTA', seal_certificate_subject: 'CN=Archive Test Seal' });
    expect(new Date(row.archive_expires_at).getTime()).toBe(shortTsa.notAfter.getTime());
    expect(await t.app.services.archiveRenewal.due()).toEqual([sealed.id]);

    // The first authority is gone by the time of the renewal: the next one in SEAL_TSA_URLS answers.
    await first.close();
    const ocspAskedAtSeal = ca.requests['/ocsp'] ?? 0;
    const outcomes = await t.app.services.archiveRenewal.renewDue();
    expect(outcomes).toEqual([{ recordId: sealed.id, renewed: true, version: 2, sha256: expect.stringMatching(/^sha256:/) }]);

    const after = await document();
    expect(after.etag).toBe(`"${sha(after.bytes)}"`);
    expect(sha(after.bytes)).not.toBe(sha(before.bytes));
    // An incremental revision: every earlier byte is as it was.
    expect(after.bytes.subarray(0, before.bytes.length).equals(before.bytes)).toBe(true);
    const renewedReport = await inspectPades(after.bytes);
    expect(renewedReport).toMatchObject({ ok: true, level: 'B-LTA' });
    expect(renewedReport.timestamps.map((s) => [s.kind, s.authority?.subject])).toEqual([
      ['signature', 'CN=Short-lived TSA'],
      ['document', 'CN=Short-lived TSA'],
      ['document', 'CN=Long-lived TSA'],
    ]);
    // The renewal's DSS update holds fresh revocation data for every chain before the new timestamp (the
    // first authority's included, gathered while its certificate is valid); the new authority's chain is
    // in its token, and goes in the DSS at the next renewal.
    expect(renewedReport.dss!.certificates.map((c) => c.subject).sort()).toEqual(['CN=Archive Test CA', 'CN=Archive Test Seal', 'CN=Short-lived TSA']);
    expect(renewedReport.dss!.ocspResponses).toBeGreaterThanOrEqual(sealedReport.dss!.ocspResponses);
    expect(ca.requests['/ocsp'] ?? 0).toBeGreaterThan(ocspAskedAtSeal);

    // A day after the first authority's certificate expires: the renewed PDF is still valid, the first one is not.
    const later = new Date(shortTsa.notAfter.getTime() + DAY);
    expect((await inspectPades(after.bytes, { at: later })).validity.ok).toBe(true);
    const stale = await inspectPades(before.bytes, { at: later });
    expect(stale.validity).toMatchObject({ ok: false });
    expect(stale.validity.detail).toContain('CN=Short-lived TSA is valid');

    // Both versions verify by their hash, saying which one; one changed byte in either does not.
    const old = await verify(sha(before.bytes));
    expect(old.body).toMatchObject({ verdict: 'verified', match_method: 'document_hash', document_version: { version: 1, current: false, cause: 'sealed' } });
    expect(old.body.document).toMatchObject({ pades_level: 'B-LTA', versions: 2, current_hash: sha(after.bytes), certificate_subject: 'CN=Archive Test Seal' });
    const current = await verify(sha(after.bytes));
    expect(current.body).toMatchObject({ verdict: 'verified', document_version: { version: 2, current: true, cause: 'archive_timestamp' } });
    for (const bytes of [before.bytes, after.bytes]) {
      const tampered = Buffer.from(bytes);
      const at = bytes.length - 40;
      tampered[at] = tampered[at]! ^ 0x01;
      expect((await verify(sha(tampered))).body).toMatchObject({ verdict: 'no_match', document_version: null });
      expect((await inspectPades(tampered)).ok).toBe(false);
    }
    const versions = (await db.query(`select version, sha256, cause from sealed_document_versions where record_id = $1 order by version`, [sealed.id])).rows;
    expect(versions).toEqual([
      { version: 1, sha256: sha(before.bytes), cause: 'sealed' },
      { version: 2, sha256: sha(after.bytes), cause: 'archive_timestamp' },
    ]);

    // The new archive timestamp's certificate lives five years: nothing is due now.
    expect(await t.app.services.archiveRenewal.due()).toEqual([]);
    expect(await t.app.services.archiveRenewal.renewDue()).toEqual([]);
    // Asked anyway, the same authority's certificate would extend nothing: the file is left as it is.
    expect(await t.app.services.archiveRenewal.renew(sealed.id)).toMatchObject({ renewed: false, reason: expect.stringContaining('expires no later') });
    expect(sha((await document()).bytes)).toBe(sha(after.bytes));
  });

  it('the hourly job renews on its own: an instance whose renewal window reaches the new expiry adds the next timestamp', async () => {
    const renewedOnce = (await document()).bytes;
    // Ten years ahead covers the five-year authority: its run at start finds the PDF due, and an authority
    // certified for eight years extends it.
    const third = await startTimestampAuthority('grant', { identity: await ca.issue({ commonName: 'Eight-year TSA', kind: 'timestamping', notAfter: new Date(Date.now() + 8 * 365 * DAY) }) });
    const other = await startTestApp({ SEAL_TSA_URLS: third.url, JOBS_ENABLED: 'true', ARCHIVE_RENEW_BEFORE_DAYS: '3650' }, { sameDatabaseAs: t });
    try {
      const version3 = await waitFor(async () => (await db.query(`select sha256 from sealed_document_versions where record_id = $1 and version = 3`, [sealed.id])).rows[0] ?? null, 60_000);
      const now = await document();
      expect(sha(now.bytes)).toBe(version3.sha256);
      expect(now.bytes.subarray(0, renewedOnce.length).equals(renewedOnce)).toBe(true);
      const report = await inspectPades(now.bytes);
      expect(report).toMatchObject({ ok: true, level: 'B-LTA' });
      expect(report.timestamps.filter((s) => s.kind === 'document')).toHaveLength(3);
      // The previous archive timestamp's chain is in the DSS now, before the new one.
      expect(report.dss!.certificates.map((c) => c.subject)).toContain('CN=Long-lived TSA');
    } finally {
      await other.stop();
      await third.close();
    }
  }, 90_000);

  it('a PDF that gains nothing is put off: a day when the certificate would not extend it, 6 hours when the authority fails', async () => {
    const kept = await document();
    // Due (its newest timestamp expires in eight years, inside a ten-year window), but this authority's
    // certificate expires sooner than that: asking it extends nothing.
    const sevenYear = await startTimestampAuthority('grant', { identity: await ca.issue({ commonName: 'Seven-year TSA', kind: 'timestamping', notAfter: new Date(Date.now() + 7 * 365 * DAY) }) });
    const clock = new ManualClock();
    const other = await startTestApp({ SEAL_TSA_URLS: sevenYear.url, ARCHIVE_RENEW_BEFORE_DAYS: '3650' }, { sameDatabaseAs: t, clock });
    const renewal = other.app.services.archiveRenewal;
    try {
      expect(await renewal.due()).toEqual([sealed.id]);
      const [outcome] = await renewal.renewDue();
      expect(outcome).toMatchObject({ recordId: sealed.id, renewed: false, outcome: 'not_extended' });
      expect(outcome!.nextAttemptAt!.getTime() - clock.now().getTime()).toBeGreaterThan(DAY - 60_000);
      expect(sevenYear.granted).toBeGreaterThan(0);
      const asked = sevenYear.granted;
      // Not due again for a day: the next hourly runs ask nobody.
      expect(await renewal.due()).toEqual([]);
      clock.advance(23 * 3_600_000);
      expect(await renewal.renewDue()).toEqual([]);
      expect(sevenYear.granted).toBe(asked);
      clock.advance(2 * 3_600_000);
      expect(await renewal.due()).toEqual([sealed.id]);

      // The authority gone: the attempt fails, and the PDF waits 6 hours.
      await sevenYear.close();
      const [failed] = await renewal.renewDue();
      expect(failed).toMatchObject({ recordId: sealed.id, renewed: false, outcome: 'failed' });
      expect(failed!.nextAttemptAt!.getTime() - clock.now().getTime()).toBeGreaterThan(6 * 3_600_000 - 60_000);
      expect(await renewal.due()).toEqual([]);
      clock.advance(6 * 3_600_000 + 60_000);
      expect(await renewal.due()).toEqual([sealed.id]);
      // Nothing was stored meanwhile.
      expect(sha((await document()).bytes)).toBe(sha(kept.bytes));
      expect((await db.query(`select count(*)::int as n from sealed_document_versions where record_id = $1`, [sealed.id])).rows[0].n).toBe(3);
    } finally {
      await other.stop();
      await sevenYear.close().catch(() => undefined);
    }
  }, 90_000);
});
