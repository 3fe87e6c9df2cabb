import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import yauzl from 'yauzl';
import { sha256Tag } from './sealed-metadata.js';
import { verifySealedPdf, type VerificationReport } from './verify.js';

/** The columns `record-verify --manifest` reads of an export's manifest.csv (it has more). */
type ManifestRow = { reference: string; document_hash: string; metadata_hash: string; pdf_file: string; note?: string };

export type ManifestOptions = {
  /** A chain node: the anchor of each record is checked too. Without it, only what the files prove offline. */
  rpcUrl?: string;
  registryAddress?: string;
  sealFingerprint?: string;
  at?: Date;
  trust?: Uint8Array[];
};

export type ManifestLine = { reference: string; file: string; outcome: 'verified' | 'failed' | 'skipped'; detail: string; report?: VerificationReport };

/** An export as files: its manifest's text, and each file by its path in the export (null: not there). */
type ExportFiles = { manifest: string; read: (file: string) => Promise<Uint8Array | null>; close: () => void };

/**
 * Verifies every sealed PDF an export's manifest lists, offline: each PDF's seal (as `record-verify
 * <pdf>` does, the anchor only when a chain node is given), that its bytes hash to the row's
 * `document_hash`, and that its embedded sealed metadata hashes to the row's `metadata_hash`. A row
 * without a PDF (a notarization) is skipped, said so. `source`: the manifest.csv (files relative to
 * its folder) or the export's ZIP itself.
 */
export async function verifyManifest(source: string, options: ManifestOptions, each: (line: ManifestLine) => void = () => undefined): Promise<ManifestLine[]> {
  const files = source.toLowerCase().endsWith('.zip') ? await zipFiles(source) : folderFiles(source);
  try {
    const rows = parse<ManifestRow>(files.manifest, { columns: true, skip_empty_lines: true, bom: true });
    const first = rows[0];
    if (first && !('pdf_file' in first && 'document_hash' in first)) throw new Error('not an export manifest: it has no pdf_file and document_hash columns');
    const lines: ManifestLine[] = [];
    for (const row of rows) {
      const line = await verifyRow(row, files, options);
      lines.push(line);
      each(line);
    }
    return lines;
  } finally {
    files.close();
  }
}

async function verifyRow(row: ManifestRow, files: ExportFiles, options: ManifestOptions): Promise<ManifestLine> {
  const base = { reference: row.reference, file: row.pdf_file };
  if (!row.pdf_file) return { ...base, outcome: 'skipped', detail: row.note || 'no PDF in the export' };
  const bytes = await files.read(row.pdf_file);
  if (!bytes) return { ...base, outcome: 'failed', detail: `${row.pdf_file} is not in the export` };
  const hash = sha256Tag(bytes);
  if (hash !== row.document_hash) return { ...base, outcome: 'failed', detail: `the PDF hashes to ${hash}, the manifest says ${row.document_hash || 'nothing'}` };
  const report = await verifySealedPdf(bytes, options);
  if (report.verdict !== 'verified') return { ...base, outcome: 'failed', detail: report.reason ?? 'not verified', report };
  if (report.metadataHash !== row.metadata_hash) return { ...base, outcome: 'failed', detail: `its sealed metadata hashes to ${report.metadataHash}, the manifest says ${row.metadata_hash}`, report };
  if (report.reference && report.reference !== row.reference) return { ...base, outcome: 'failed', detail: `the PDF is the seal of ${report.reference}, not of ${row.reference}`, report };
  const level = report.pades?.level ? `PAdES ${report.pades.level}` : 'sealed';
  return { ...base, outcome: 'verified', detail: `${level} seal valid; document and metadata hashes match the manifest${options.rpcUrl ? '; anchored' : ''}`, report };
}

/** A manifest.csv beside the export's files. */
function folderFiles(manifestPath: string): ExportFiles {
  const folder = path.dirname(path.resolve(manifestPath));
  return {
    manifest: fs.readFileSync(manifestPath, 'utf8'),
    read: async (file) => {
      const resolved = path.resolve(folder, file);
      // Only files inside the export's folder.
      if (!resolved.startsWith(folder + path.sep)) return null;
      try {
        return new Uint8Array(fs.readFileSync(resolved));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    close: () => undefined,
  };
}

/** The export's ZIP as it was downloaded: its entries read one at a time, when asked for. */
async function zipFiles(zipPath: string): Promise<ExportFiles> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(zipPath, { lazyEntries: true, autoClose: false }, (error, opened) => (error ? reject(error) : resolve(opened))));
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  const read = async (file: string): Promise<Uint8Array | null> => {
    const entry = entries.get(file);
    if (!entry) return null;
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => zip.openReadStream(entry, (error, opened) => (error ? reject(error) : resolve(opened))));
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return new Uint8Array(Buffer.concat(chunks));
  };
  const manifest = await read('manifest.csv');
  if (!manifest) {
    zip.close();
    throw new Error(`${zipPath} has no manifest.csv: is it an export?`);
  }
  return { manifest: Buffer.from(manifest).toString('utf8'), read, close: () => zip.close() };
}
