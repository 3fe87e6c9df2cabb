import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { main } from '../../packages/verifier/src/cli.js';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp } from '../support/mcp.js';
import { watchSubscription } from '../support/subscriptions.js';
import { waitFor } from '../support/wait.js';
import { ManualClock } from '../support/clock.js';

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

type Row = Record<'reference' | 'title' | 'type' | 'status' | 'sealed_at' | 'document_hash' | 'metadata_hash' | 'transaction_hash' | 'pdf_file' | 'audit_trail_file' | 'sealed_metadata_file', string>;

/**
 * Bulk export (issue 48): 50 sealed records of one person, exported, downloaded once by a single-use
 * link, unzipped, checked file by file against the manifest, and verified offline by `record-verify
 * --manifest`; nobody else's records in it, and nobody else sees the export.
 */
describe('Bulk export of sealed records', () => {
  let t: TestApp;
  /** Moved past the export's expiry by the last test. */
  const clock = new ManualClock();
  let alice: string;
  let bob: string;
  let dir: string;
  const sealed: { id: string; reference: string }[] = [];
  let bobsRecord: string;

  /** A declaration signed by its initiator and submitted: sealed at once. */
  const sealedDeclaration = async (token: string, email: string, title: string) => {
    const created = await t.request('POST', '/api/v1/declarations', { token, body: agreementBody({ parties: undefined, title }) });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    await signWithEmailOtp(t, token, email, created.body.id);
    const submitted = await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token });
    if (submitted.body.status !== 'sealed') throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
    return { id: created.body.id as string, reference: created.body.agr_reference as string };
  };

  beforeAll(async () => {
    // Fifty signature codes to one address within minutes: its code limit raised for the setup.
    t = await startTestApp({ JOBS_ENABLED: 'true', OTP_REQUESTS_PER_WINDOW: '1000' }, { clock });
    dir = await mkdtemp(path.join(tmpdir(), 'export-'));
    [alice, bob] = await Promise.all([t.signIn('alice@export.example'), t.signIn('bob@export.example')]);
    // One after the other: each ceremony's code is told apart from the others' by the mail's order only.
    for (let i = 1; i <= 50; i += 1) sealed.push(await sealedDeclaration(alice, 'alice@export.example', `Declaration ${i}`));
    bobsRecord = (await sealedDeclaration(bob, 'bob@export.example', "Bob's own")).reference;
    // A draft of Alice's: not sealed, never exported.
    await t.request('POST', '/api/v1/declarations', { token: alice, body: agreementBody({ parties: undefined, title: 'Still a draft' }) });
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  let exportId: string;
  let zipPath: string;

  it('exports the 50 sealed records, with progress by subscription, and a single-use link once ready', async () => {
    const created = await t.request('POST', '/api/v1/exports', { token: alice, body: { include: ['pdf', 'audit_trail', 'sealed_metadata'] } });
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'queued', total: 50, include: ['pdf', 'audit_trail', 'sealed_metadata'], team_id: null });
    exportId = created.body.id;

    const progress = watchSubscription<{ status: string; processed: number; total: number }>(
      t,
      alice,
      'subscription ($id: ID!) { exportProgress(id: $id) { id status processed total } }',
      'exportProgress',
      { id: exportId },
    );
    const ready = await waitFor(async () => {
      const answer = await t.request('GET', `/api/v1/exports/${exportId}`, { token: alice });
      return answer.body.status === 'ready' ? answer.body : null;
    }, 240_000);
    expect(ready).toMatchObject({ total: 50, processed: 50, expires_at: expect.any(String), download: { url: expect.stringContaining('/api/v1/export-downloads/') } });
    await waitFor(async () => progress.events.at(-1)?.status === 'ready', 10_000);
    expect(progress.errors).toEqual([]);
    expect(progress.events.at(-1)).toMatchObject({ status: 'ready', processed: 50, total: 50 });
    await progress.dispose();

    // The link opens once: the second use is refused like an unknown link.
    // The link is on PUBLIC_BASE_URL; here the service answers on its test port.
    const link = t.url + new URL(ready.download.url as string).pathname;
    const download = await fetch(link);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    zipPath = path.join(dir, 'export.zip');
    await writeFile(zipPath, Buffer.from(await download.arrayBuffer()));
    expect((await fetch(link)).status).toBe(404);

    // GraphQL: the same export, and another single-use link.
    const graph = await t.graphql('query ($id: ID!) { recordExport(id: $id) { status total processed include } }', { id: exportId }, { token: alice });
    expect(graph.body.data.recordExport).toEqual({ status: 'ready', total: 50, processed: 50, include: ['pdf', 'audit_trail', 'sealed_metadata'] });
    const another = await t.graphql('mutation ($id: ID!) { issueExportDownload(id: $id) { url expiresAt } }', { id: exportId }, { token: alice });
    expect(another.body.data.issueExportDownload.url).toContain('/api/v1/export-downloads/');
  }, 300_000);

  it('holds every record once, each file matching the manifest', async () => {
    const out = path.join(dir, 'unzipped');
    await run('unzip', ['-q', zipPath, '-d', out]);
    const rows = parse<Row>(await readFile(path.join(out, 'manifest.csv'), 'utf8'), { columns: true });
    expect(rows.map((row) => row.reference).sort()).toEqual(sealed.map((record) => record.reference).sort());
    expect(rows.map((row) => row.reference)).not.toContain(bobsRecord);
    for (const row of rows) {
      expect(row).toMatchObject({ type: 'declaration', status: 'sealed', pdf_file: `${row.reference}/${row.reference}.pdf`, audit_trail_file: `${row.reference}/audit-trail.json`, sealed_metadata_file: `${row.reference}/sealed-metadata.json` });
      expect(sha256(await readFile(path.join(out, row.pdf_file)))).toBe(row.document_hash);
      expect(sha256(await readFile(path.join(out, row.sealed_metadata_file)))).toBe(row.metadata_hash);
      const trail = JSON.parse(await readFile(path.join(out, row.audit_trail_file), 'utf8')) as { reference: string; entries: { move: string }[] };
      expect(trail.reference).toBe(row.reference);
      expect(trail.entries.length).toBeGreaterThan(1);
    }
    // The same PDF the record's own route serves.
    const one = rows[0]!;
    const record = sealed.find((r) => r.reference === one.reference)!;
    const served = await fetch(`${t.url}/api/v1/agreements/${record.id}/document`, { headers: { authorization: `Bearer ${alice}` } });
    expect(sha256(new Uint8Array(await served.arrayBuffer()))).toBe(one.document_hash);

    // record-verify verifies every PDF offline in one run, from the manifest and from the ZIP itself.
    const verify = async (...args: string[]) => {
      let text = '';
      const code = await main(args, { out: (s) => (text += s), err: (s) => (text += s) });
      return { code, text };
    };
    const fromManifest = await verify('--manifest', path.join(out, 'manifest.csv'));
    expect(fromManifest.text).toContain('50 verified, 0 failed');
    expect(fromManifest.code).toBe(0);
    expect((await verify('--manifest', zipPath)).code).toBe(0);

    // One PDF changed: named, and the run fails.
    const tampered = path.join(out, one.pdf_file);
    const bytes = await readFile(tampered);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
    await writeFile(tampered, bytes);
    const broken = await verify('--manifest', path.join(out, 'manifest.csv'));
    expect(broken.code).toBe(1);
    expect(broken.text).toMatch(new RegExp(`FAIL ${one.reference} `));
    expect(broken.text).toContain('49 verified, 1 failed');
  }, 120_000);

  it("shows nobody else the export, and exports only each caller's own records", async () => {
    expect((await t.request('GET', `/api/v1/exports/${exportId}`, { token: bob })).status).toBe(404);
    expect((await t.request('POST', `/api/v1/exports/${exportId}/download-links`, { token: bob })).status).toBe(404);
    const bobs = await t.graphql('query ($id: ID!) { recordExport(id: $id) { id } }', { id: exportId }, { token: bob });
    expect(bobs.body.errors?.[0].extensions.code).toBe('not_found');
    expect((await t.request('GET', '/api/v1/exports', { token: bob })).body.exports).toEqual([]);
    const own = await t.request('POST', '/api/v1/exports', { token: bob, body: { include: ['sealed_metadata'] } });
    expect(own.body.total).toBe(1);
    // A team Bob is not in: as if it did not exist.
    const team = await t.request('POST', '/api/v1/teams', { token: alice, body: { name: 'Export Co' } });
    expect((await t.request('POST', '/api/v1/exports', { token: bob, body: { team_id: team.body.id } })).status).toBe(404);
    const teamExport = await t.request('POST', '/api/v1/exports', { token: alice, body: { team_id: team.body.id } });
    expect(teamExport.body).toMatchObject({ team_id: team.body.id, total: 0 });
    expect((await t.request('GET', `/api/v1/exports/${teamExport.body.id}`, { token: bob })).status).toBe(404);
    // Only sealed statuses, in order.
    const bad = await t.request('POST', '/api/v1/exports', { token: alice, body: { status: 'draft' } });
    expect(bad.status).toBe(422);
    const range = await t.request('POST', '/api/v1/exports', { token: alice, body: { from: '2030-01-01T00:00:00Z', to: '2029-01-01T00:00:00Z' } });
    expect(range.body.detail[0].loc).toEqual(['body', 'to']);
    const listed = await t.request('GET', '/api/v1/exports', { token: alice });
    expect(listed.body.exports.map((e: { id: string }) => e.id)).toContain(exportId);
  });

  it('is asked for and followed by an assistant over MCP, down to its download link', async () => {
    const key = await t.request('POST', '/api/v1/api-keys', { token: alice, body: { scopes: ['retrieve'] } });
    const mcp = await connectMcp(t.url, { bearer: key.body.key });
    try {
      const asked = await mcp.call('export_records', { include: ['pdf'] });
      expect(asked.isError).toBe(false);
      expect(asked.structured.export).toMatchObject({ total: 50, include: ['pdf'] });
      expect(asked.structured.next_action.tool).toBe('get_export');
      const ready = await waitFor(async () => {
        const followed = await mcp.call('get_export', asked.structured.next_action.arguments);
        return followed.structured.export.status === 'ready' ? followed : null;
      }, 120_000);
      expect(ready.structured.download_url).toContain('/api/v1/export-downloads/');
      expect((await fetch(t.url + new URL(ready.structured.download_url as string).pathname)).headers.get('content-type')).toBe('application/zip');
      // Another person's export is not found.
      const bobKey = await t.request('POST', '/api/v1/api-keys', { token: bob, body: { scopes: ['retrieve'] } });
      const bobs = await connectMcp(t.url, { bearer: bobKey.body.key });
      expect((await bobs.call('get_export', { id: exportId })).isError).toBe(true);
      await bobs.close();
    } finally {
      await mcp.close();
    }
  }, 180_000);

  it('expires after EXPORT_TTL_SECONDS: reads expired, gives no link, its earlier link opens nothing, and the sweep removes it', async () => {
    const before = await t.request('GET', `/api/v1/exports/${exportId}`, { token: alice });
    expect(before.body.status).toBe('ready');
    const link = t.url + new URL(before.body.download.url as string).pathname;
    // A day (EXPORT_TTL_SECONDS' default) and a minute later; Alice's session has ended by then too.
    clock.advance((24 * 3600 + 60) * 1000);
    const again = await t.signIn('alice@export.example');
    const after = await t.request('GET', `/api/v1/exports/${exportId}`, { token: again });
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ status: 'expired', download: null });
    const graph = await t.graphql('mutation ($id: ID!) { issueExportDownload(id: $id) { url } }', { id: exportId }, { token: again });
    expect(graph.body.errors![0]!.extensions.code).toBe('conflict');
    expect((await fetch(link)).status).toBe(404);
    const swept = await t.app.services.housekeeping.sweep();
    expect(swept.exports).toBeGreaterThanOrEqual(1);
    expect((await t.request('GET', `/api/v1/exports/${exportId}`, { token: again })).status).toBe(404);
  }, 60_000);
});
