import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadImage } from 'canvas';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { poppler } from '../support/sealing.js';

const sha = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const RECORD = `query R($id: String!) { record(id: $id) { status document { filename contentType hash byteSize level generatedAt } shareCard { filename contentType width height hash generatedAt available } identicon { digest } blockchain { status metadataHash } } }`;


describe('Sealing: the sealed record becomes a signed PDF and a share card', () => {
  let t: TestApp;
  let sealed: SealedAgreement;
  let db: pg.Client;
  let dir: string;
  let pdf: Buffer;
  let metadataHash: string;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    dir = await mkdtemp(path.join(os.tmpdir(), 'rss-sealing-'));
    sealed = await sealTwoPartyAgreement(t, {
      title: 'Studio lease, Lyon',
      body: 'Élodie Marchand lets the studio at 14 Rue des Acacias to Bob Example for twelve months from 1 December 2026. The rent is 850 € a month, paid before the fifth day of each month. Ο μισθωτής διατηρεί το ακίνητο σε καλή κατάσταση.',
    });
    // The job made by the outbox after the seal: the record read shows each artifact once it exists.
    const record = await waitFor(async () => {
      const { body } = await t.graphql(RECORD, { id: sealed.id }, { token: sealed.initiator });
      return body.data?.record?.document && body.data.record.shareCard ? body.data.record : null;
    });
    metadataHash = record.blockchain.metadataHash;
    const { rows } = await db.query(`select content from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [sealed.id]);
    pdf = rows[0].content;
    await writeFile(path.join(dir, 'sealed.pdf'), pdf);
    if (process.env.SEALING_LOOK_DIR) await writeFile(path.join(process.env.SEALING_LOOK_DIR, 'sealed.pdf'), pdf);
  }, 180_000);
  afterAll(async () => {
    await db.end();
    await t.stop();
  });

  it('shows the document and card metadata on the record once made; the document hash is the stored bytes', async () => {
    const { body } = await t.graphql(RECORD, { id: sealed.reference }, { token: sealed.party });
    const record = body.data.record;
    expect(record.document).toMatchObject({ filename: `${sealed.reference}.pdf`, contentType: 'application/pdf', hash: sha(pdf), byteSize: pdf.length, level: 'B-B' });
    expect(record.identicon.digest).toBe(metadataHash);
  });

  it('is signed: pdfsig reports the seal signature valid (PAdES, ETSI.CAdES.detached)', async () => {
    const result = await poppler('pdfsig', [path.join(dir, 'sealed.pdf')]);
    expect(result.stdout).toContain('Signature Validation: Signature is Valid.');
    expect(result.stdout).toContain('ETSI.CAdES.detached');
  });

  it('shows the body, the parties, the reference and the metadata hash as text', async () => {
    const { stdout } = await poppler('pdftotext', [path.join(dir, 'sealed.pdf'), '-']);
    const text = stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Élodie Marchand lets the studio');
    expect(text).toContain('Bob Example');
    expect(text).toContain(sealed.reference);
    expect(text).toContain(metadataHash.replace(/^sha256:/, '').slice(0, 32));
    expect(text).toMatch(/Certificate of completion/i);
  });

  it('carries its own proof: sealed-metadata.json hashes to metadata_hash, audit-trail.json recomputes', async () => {
    await poppler('pdfdetach', ['-saveall', '-o', dir, path.join(dir, 'sealed.pdf')]);
    const metadata = await readFile(path.join(dir, 'sealed-metadata.json'));
    expect(sha(metadata)).toBe(metadataHash);
    const trail = JSON.parse(await readFile(path.join(dir, 'audit-trail.json'), 'utf8'));
    expect(trail.reference).toBe(sealed.reference);
    expect(trail.entries.at(-1)).toMatchObject({ move: 'complete_signatures', details: { metadata_hash: metadataHash } });
  });

  it('one changed byte makes the signature invalid', async () => {
    const tampered = Buffer.from(pdf);
    // A byte inside the signed range (the first page object), not in the signature's own hole.
    const at = tampered.indexOf('/Type /Page') + 3;
    tampered[at] = tampered[at]! ^ 0x01;
    const file = path.join(dir, 'tampered.pdf');
    await writeFile(file, tampered);
    const result = await poppler('pdfsig', [file]);
    expect(result.stdout).not.toContain('Signature is Valid.');
  });

  it('the share card decodes at the advertised size and its hash matches', async () => {
    const { body } = await t.graphql(RECORD, { id: sealed.id }, { token: sealed.initiator });
    const card = body.data.record.shareCard;
    const { rows } = await db.query(`select content from sealed_artifacts where record_id = $1 and kind = 'share_card'`, [sealed.id]);
    const png: Buffer = rows[0].content;
    expect(sha(png)).toBe(card.hash);
    const image = await loadImage(png);
    expect([image.width, image.height]).toEqual([card.width, card.height]);
    expect([card.width, card.height]).toEqual([1200, 630]);
  });

  it('a job run again, or many at once, leaves exactly one seal and one document hash', async () => {
    const again = await Promise.all([0, 1, 2].map(() => t.app.services.sealArtifacts.make(sealed.id)));
    for (const made of again) expect(made.pdf?.sha256).toBe(sha(pdf));
    const { rows } = await db.query(`select kind, count(*)::int as n from sealed_artifacts where record_id = $1 group by kind order by kind`, [sealed.id]);
    expect(rows).toEqual([{ kind: 'sealed_pdf', n: 1 }, { kind: 'share_card', n: 1 }]);
    const seals = await db.query('select count(*)::int as n from record_seals where record_id = $1', [sealed.id]);
    expect(seals.rows[0].n).toBe(1);
  });

  it('jobs racing on a record without artifacts store each once, with one record_artifact event each', async () => {
    await db.query('delete from sealed_artifacts where record_id = $1', [sealed.id]);
    const events = async () =>
      (await db.query(`select payload->>'artifact' as artifact, count(*)::int as n from outbox_events where record_id = $1 and type = 'record_artifact' group by 1 order by 1`, [sealed.id])).rows;
    const before = new Map((await events()).map((row) => [row.artifact, row.n]));
    // Each draws both files and stores them; the losers of each insert answer the winner's row.
    const raced = await Promise.all([0, 1, 2].map(() => t.app.services.sealArtifacts.make(sealed.id)));
    for (const made of raced) expect(made.pdf?.sha256).toBe(sha(pdf));
    expect(new Set(raced.map((made) => made.card?.id)).size).toBe(1);
    const { rows } = await db.query(`select kind, count(*)::int as n from sealed_artifacts where record_id = $1 group by kind order by kind`, [sealed.id]);
    expect(rows).toEqual([{ kind: 'sealed_pdf', n: 1 }, { kind: 'share_card', n: 1 }]);
    const after = await events();
    expect(after.map((row) => [row.artifact, row.n - (before.get(row.artifact) ?? 0)])).toEqual([['sealed_pdf', 1], ['share_card', 1]]);
  });

  it('a job killed half-way then retried stores the same bytes: rendering and signing are deterministic', async () => {
    await db.query(`delete from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [sealed.id]);
    const remade = await t.app.services.sealArtifacts.pdf(sealed.id);
    expect(remade?.sha256).toBe(sha(pdf));
    // The same bytes are the same version: the record's document hash history holds it once.
    const versions = await db.query(`select version, sha256, cause from sealed_document_versions where record_id = $1`, [sealed.id]);
    expect(versions.rows).toEqual([{ version: 1, sha256: sha(pdf), cause: 'sealed' }]);
  });
});
