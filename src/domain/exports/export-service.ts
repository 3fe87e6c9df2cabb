import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Repeater } from '@repeaterjs/repeater';
import { stringify } from 'csv-stringify/sync';
import type { Logger } from 'pino';
import yazl from 'yazl';
import { preparedQuery } from '../shared/sql.js';
import type { Principal } from '../identity/principal.js';
import { requireAccess } from '../identity/operation-access.js';
import { auditTrail } from '../records/audit-trail.js';
import { PERSONAL_RECORD_IDS } from '../records/record-access.js';
import type { SignedRecord } from '../records/entities.js';
import { auditTrailDocument, type SealArtifacts } from '../sealing/artifacts-service.js';
import type { ArtifactStore } from '../sealing/artifact-store.js';
import { issueTicket, redeemTicket } from '../sealing/tickets.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { requireTeamRole } from '../teams/team-access.js';
import { EXPORT_PARTS, EXPORTABLE_STATUSES, RecordExport, type ExportPart, type ExportStatus } from './entities.js';

export type ExportView = {
  id: string;
  teamId: string | null;
  status: ExportStatus;
  include: ExportPart[];
  total: number;
  processed: number;
  createdAt: Date;
  readyAt: Date | null;
  expiresAt: Date | null;
};

export type ExportDownload = { url: string; expiresAt: Date };

export type ExportRequest = { status?: string | null; from?: Date | null; to?: Date | null; teamId?: string | null; include?: readonly string[] | null };

export type ExportSettings = {
  publicBaseUrl: string;
  /** EXPORT_TTL_SECONDS: how long a ready export can be downloaded. */
  ttlSeconds: number;
  /** CARD_TICKET_TTL_SECONDS: how long one single-use download link is good for. */
  linkTtlSeconds: number;
  /** EXPORT_MAX_RECORDS: the most records one export holds. */
  maxRecords: number;
};

/** Where the export job's progress is published (per export), for `exportProgress`. */
const EXPORT_PROGRESS = 'EXPORT_PROGRESS';

/** The manifest's columns, in order. */
export const MANIFEST_COLUMNS = [
  'reference', 'title', 'type', 'status', 'sealed_at', 'document_hash', 'metadata_hash', 'transaction_hash', 'pdf_file', 'audit_trail_file', 'sealed_metadata_file', 'note',
] as const;

/** Records the export job prepares (and the ZIP reads) per statement. */
const PAGE = 100;

/** Records whose files are read while the one before is written into the ZIP. */
const READ_AHEAD = 4;

/** One record's files as read for the ZIP (null: not asked for, or a notarization's PDF). */
type RecordFiles = { pdf: { bytes: Buffer; sha256: string } | null; auditTrail: Buffer | null; metadata: Buffer | null };

const FINISHED: readonly ExportStatus[] = ['ready', 'failed', 'expired'];

type ExportRow = {
  position: number;
  record_id: string;
  reference: string;
  title: string | null;
  type: SignedRecord['type'];
  status: string;
  sealed_at: Date;
  metadata_hash: string;
  tx_hash: string | null;
  pdf_hash: string | null;
};

/**
 * Bulk exports of sealed records. Asking freezes the records it holds, by the one read
 * rule at that moment: without a team, the caller's own records and those it takes part in (the
 * listing's rule); with a team (or for a team's key), the team's records, for its members. The export
 * job makes sure each record's sealed PDF exists; then single-use links (card tickets, kind
 * `record_export`) stream the ZIP, one record at a time, until the export expires.
 */
export class ExportService {
  private queued: (exportId: string) => Promise<unknown> = async () => undefined;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      sealArtifacts: SealArtifacts;
      artifactStore: ArtifactStore;
      publish: (topic: string, exportId: string, payload: unknown) => void;
      subscribe: (topic: string, exportId: string) => AsyncIterable<unknown>;
      settings: ExportSettings;
      logger: Logger;
    },
  ) {}

  /** Who runs the export job when an export is asked for (the job queue, where jobs run). */
  onQueued(enqueue: (exportId: string) => Promise<unknown>): void {
    this.queued = enqueue;
  }

  async create(principal: Principal | null, request: ExportRequest): Promise<ExportView> {
    const caller = requireAccess(principal, 'exports.create');
    const issues = new IssueCollector();
    if (request.status != null && !(EXPORTABLE_STATUSES as readonly string[]).includes(request.status)) {
      issues.add(['status'], `Only sealed records are exported: status is one of ${EXPORTABLE_STATUSES.join(', ')}`, 'invalid_status');
    }
    if (request.from && request.to && request.from > request.to) issues.add(['to'], 'to is before from', 'invalid_range');
    const include = [...new Set(request.include ?? EXPORT_PARTS)];
    if (include.length === 0) issues.add(['include'], `Include at least one of ${EXPORT_PARTS.join(', ')}`, 'empty_include');
    for (const [i, part] of include.entries()) {
      if (!(EXPORT_PARTS as readonly string[]).includes(part)) issues.add(['include', i], `One of ${EXPORT_PARTS.join(', ')}`, 'invalid_part');
    }
    issues.throwIfAny();
    const em = this.deps.orm.em.fork();
    const teamId = request.teamId ?? (caller.kind === 'api_key' && caller.teamKey ? caller.identityId : null);
    if (teamId !== null) await requireTeamRole(em, caller, teamId, 'exports.create');
    const now = this.deps.clock.now();
    const created = await em.transactional(async (tx) => {
      const row = tx.create(RecordExport, {
        owner: caller.identityId,
        teamId: teamId?.toLowerCase() ?? null,
        filterStatus: request.status ?? null,
        filterFrom: request.from ?? null,
        filterTo: request.to ?? null,
        include: include as ExportPart[],
        createdAt: now,
      });
      await tx.flush();
      // The records, frozen now by the read rule of this moment, in the order they were sealed.
      const [readable, readableParams] = row.teamId ? ['select id from records where team_id = ?', [row.teamId]] : [PERSONAL_RECORD_IDS, [caller.identityId, caller.identityId, caller.identityId]];
      const params: unknown[] = [row.id, ...readableParams];
      const conditions = ['r.sealed_at is not null', `r.status in (${EXPORTABLE_STATUSES.map((status) => `'${status}'`).join(', ')})`];
      for (const [condition, value] of [['r.status = ?', row.filterStatus], ['r.sealed_at >= ?', row.filterFrom], ['r.sealed_at <= ?', row.filterTo]] as const) {
        if (value === null) continue;
        conditions.push(condition);
        params.push(value);
      }
      const where = conditions.join(' and ');
      const inserted = await tx.execute<{ n: string }[]>(
        `with added as (
           insert into export_records (export_id, position, record_id)
           select ?, row_number() over (order by r.sealed_at, r.id), r.id from records r join (${readable}) readable on readable.id = r.id where ${where}
           returning 1)
         select count(*) as n from added`,
        params,
      );
      row.total = Number(inserted[0]?.n ?? 0);
      if (row.total > this.deps.settings.maxRecords) {
        throw DomainError.invalid([], `This export would hold ${row.total} records; at most ${this.deps.settings.maxRecords}: narrow it with status, from and to`, 'too_many_records');
      }
      return row;
    });
    await this.queued(created.id);
    return view(created);
  }

  async get(principal: Principal | null, id: string): Promise<ExportView> {
    const caller = requireAccess(principal, 'exports.get');
    return view(this.current(await this.visible(this.deps.orm.em.fork(), caller, id, 'exports.get')));
  }

  /** The caller's exports (newest first), or a team's. */
  async list(principal: Principal | null, teamId: string | null): Promise<ExportView[]> {
    const caller = requireAccess(principal, 'exports.list');
    const em = this.deps.orm.em.fork();
    const team = teamId ?? (caller.kind === 'api_key' && caller.teamKey ? caller.identityId : null);
    if (team !== null) await requireTeamRole(em, caller, team, 'exports.list');
    const rows = await em.find(RecordExport, team === null ? { owner: caller.identityId, teamId: null } : { teamId: team.toLowerCase() }, { orderBy: { createdAt: 'desc' }, limit: 100 });
    return rows.map((row) => view(this.current(row)));
  }

  /** A single-use link to the ZIP of a ready export (409 export_not_ready before). */
  async issueDownload(principal: Principal | null, id: string): Promise<ExportDownload> {
    const caller = requireAccess(principal, 'exports.issueDownload');
    const em = this.deps.orm.em.fork();
    const row = this.current(await this.visible(em, caller, id, 'exports.issueDownload'));
    if (row.status !== 'ready') throw new DomainError('conflict', `The export is ${row.status}: its ZIP can be downloaded once it is ready`);
    const now = this.deps.clock.now();
    // A link never outlives its export.
    const ttlSeconds = Math.max(1, Math.min(this.deps.settings.linkTtlSeconds, Math.floor((row.expiresAt!.getTime() - now.getTime()) / 1000)));
    const { token, expiresAt } = await issueTicket(em, { kind: 'record_export', subjectId: row.id, identityId: caller.identityId, now, ttlSeconds });
    return { url: `${this.deps.settings.publicBaseUrl}/api/v1/export-downloads/${token}`, expiresAt };
  }

  /** The export's view at once, then at each change of its progress; ends once it is ready, failed or expired. */
  async progress(principal: Principal | null, id: string): Promise<AsyncIterable<ExportView>> {
    const first = await this.get(principal, id);
    const changes = this.deps.subscribe(EXPORT_PROGRESS, first.id)[Symbol.asyncIterator]();
    return new Repeater<ExportView>(async (push, stop) => {
      void stop.then(() => changes.return?.());
      let current = first;
      await push(current);
      while (!FINISHED.includes(current.status)) {
        const next = await Promise.race([changes.next(), stop.then(() => null)]);
        if (!next || next.done) break;
        current = view(this.current((await this.deps.orm.em.fork().findOne(RecordExport, { id: first.id }))!));
        await push(current);
      }
      stop();
    });
  }

  /**
   * The export job: makes sure each record's sealed PDF exists (made now when its seal job has not run
   * yet), counting and publishing progress, then the export is ready until EXPORT_TTL_SECONDS from now.
   * Safe to run again: it resumes after the records already processed.
   */
  async prepare(exportId: string): Promise<void> {
    const em = this.deps.orm.em.fork();
    const started = await em.execute<{ processed: number; include: string[] }[]>(
      `update exports set status = 'running' where id = ? and status in ('queued', 'running') returning processed, include`,
      [exportId],
    );
    if (started.length === 0) return;
    let processed = started[0]!.processed;
    const wantsPdf = started[0]!.include.includes('pdf');
    this.deps.publish(EXPORT_PROGRESS, exportId, { processed });
    try {
      for (;;) {
        const page = await preparedQuery<{ position: number; record_id: string; type: string; has_pdf: boolean }>(
          em,
          `select e.position, e.record_id, r.type, exists (select 1 from sealed_artifacts a where a.record_id = e.record_id and a.kind = 'sealed_pdf') as has_pdf
             from export_records e join records r on r.id = e.record_id where e.export_id = ? and e.position > ? order by e.position limit ?`,
          [exportId, processed, PAGE],
        );
        if (page.length === 0) break;
        for (const row of page) {
          // Normally the seal's own job made it already; otherwise it is made here (first-wins: one PDF, one hash).
          if (wantsPdf && row.type !== 'notarization' && !row.has_pdf) await this.deps.sealArtifacts.pdf(row.record_id);
        }
        processed = page.at(-1)!.position;
        await preparedQuery(em, 'update exports set processed = ? where id = ?', [processed, exportId]);
        this.deps.publish(EXPORT_PROGRESS, exportId, { processed });
      }
      const now = this.deps.clock.now();
      await preparedQuery(em, `update exports set status = 'ready', ready_at = ?, expires_at = ? where id = ? and status = 'running'`, [
        now,
        new Date(now.getTime() + this.deps.settings.ttlSeconds * 1000),
        exportId,
      ]);
    } catch (error) {
      this.deps.logger.error({ err: error, exportId }, 'export failed');
      await preparedQuery(em, `update exports set status = 'failed', failure = ? where id = ?`, ['A sealed document could not be made; ask for the export again', exportId]);
    }
    this.deps.publish(EXPORT_PROGRESS, exportId, { processed });
  }

  /** Exports a job should be preparing (queued or running for a while): the sweep enqueues them again, as a lost job would leave them. */
  async unfinished(): Promise<string[]> {
    const since = new Date(this.deps.clock.now().getTime() - 30_000);
    const rows = await this.deps.orm.em.fork().execute<{ id: string }[]>(`select id from exports where status in ('queued', 'running') and created_at < ? order by created_at limit 100`, [since]);
    return rows.map((row) => row.id);
  }

  /** Redeems a download link, once: the export it is for, while it is ready (unknown, used and expired links alike are 404). */
  async redeem(token: string): Promise<{ exportId: string; filename: string }> {
    const unknown = 'This download link is unknown, already used or expired';
    const exportId = await redeemTicket(this.deps.orm.em.fork(), token, 'record_export', this.deps.clock.now(), unknown);
    const row = await this.deps.orm.em.fork().findOne(RecordExport, { id: exportId });
    if (!row || this.current(row).status !== 'ready') throw new DomainError('not_found', unknown);
    return { exportId, filename: `export-${row.createdAt.toISOString().slice(0, 10)}-${exportId.slice(0, 8)}.zip` };
  }

  /**
   * Streams the ZIP of an export into `out`: each record's files are read from the database only as
   * the ZIP nears them (yazl's lazy entries, under the output's backpressure; the next records' reads
   * start while one record is written, READ_AHEAD of them), and let go once written, so memory holds a
   * few records' files at a time whatever the export's size. The manifest comes last, from rows kept
   * as the records went by (a few hundred bytes each).
   */
  async writeZip(exportId: string, out: Writable): Promise<void> {
    const row = (await this.deps.orm.em.fork().findOne(RecordExport, { id: exportId }))!;
    const include = new Set(row.include);
    const zip = new yazl.ZipFile();
    // A file that cannot be read ends the download broken (the client sees a truncated ZIP, never a wrong one).
    zip.on('error', (error: Error) => (zip.outputStream as unknown as Readable).destroy(error));
    const written = pipeline(zip.outputStream, out);
    // A download cut short reads no more records: the next entry errs, and yazl stops.
    let cancelled = false;
    written.catch(() => (cancelled = true));
    const manifest: string[][] = [];
    const records: ExportRow[] = [];
    const loads = new Map<number, Promise<RecordFiles>>();
    const load = (index: number): Promise<RecordFiles> | undefined => {
      const record = records[index];
      if (!record) return undefined;
      let loading = loads.get(index);
      if (!loading) {
        loading = this.readFiles(record, include);
        // A read ahead whose turn never comes (the download cut short) must not be an unhandled rejection.
        loading.catch(() => undefined);
        loads.set(index, loading);
      }
      return loading;
    };
    const mtime = row.createdAt;
    const lazy = (path: string, compress: boolean, index: number, part: (files: RecordFiles) => Buffer, last: boolean) =>
      zip.addReadStreamLazy(path, { mtime, compress }, (callback) => {
        if (cancelled) return callback(new Error('the download was cut short'), undefined as never);
        for (let ahead = 1; ahead <= READ_AHEAD; ahead += 1) void load(index + ahead);
        load(index)!.then(
          (files) => {
            if (last) loads.delete(index);
            callback(null, Readable.from([part(files)]));
          },
          (error: Error) => callback(error, undefined as never),
        );
      });
    for (let after = 0; ; ) {
      // The page's records with their seal, anchor transaction and PDF hash: the manifest's rows.
      const page = await preparedQuery<ExportRow>(
        this.deps.orm.em.fork(),
        `select e.position, e.record_id, r.reference, r.title, r.type, r.status, r.sealed_at, s.metadata_hash,
                case when s.anchor_status = 'confirmed' and b.status = 'confirmed' then b.tx_hash end as tx_hash,
                (select a.sha256 from sealed_artifacts a where a.record_id = r.id and a.kind = 'sealed_pdf') as pdf_hash
           from export_records e join records r on r.id = e.record_id join record_seals s on s.record_id = r.id left join anchor_batches b on b.id = s.anchor_batch_id
          where e.export_id = ? and e.position > ? order by e.position limit ?`,
        [exportId, after, PAGE],
      );
      if (page.length === 0) break;
      after = page.at(-1)!.position;
      for (const record of page) {
        const index = records.push(record) - 1;
        const folder = record.reference;
        const files = {
          pdf: include.has('pdf') && record.type !== 'notarization' ? `${folder}/${folder}.pdf` : '',
          audit: include.has('audit_trail') ? `${folder}/audit-trail.json` : '',
          metadata: include.has('sealed_metadata') ? `${folder}/sealed-metadata.json` : '',
        };
        const note = record.type === 'notarization' ? 'a notarization has no PDF: verify it with its sealed metadata (record-verify --metadata)' : '';
        const line = [
          record.reference, record.title ?? '', record.type, record.status, new Date(record.sealed_at).toISOString(), record.pdf_hash ?? '', record.metadata_hash, record.tx_hash ?? '',
          files.pdf, files.audit, files.metadata, note,
        ];
        manifest.push(line);
        const lastPart = files.metadata ? 'metadata' : files.audit ? 'audit' : 'pdf';
        if (files.pdf) {
          lazy(files.pdf, false, index, (read) => {
            // The hash of the bytes written (a renewal since the page was read has a new one).
            line[5] = read.pdf!.sha256;
            return read.pdf!.bytes;
          }, lastPart === 'pdf');
        }
        if (files.audit) lazy(files.audit, true, index, (read) => read.auditTrail!, lastPart === 'audit');
        if (files.metadata) lazy(files.metadata, true, index, (read) => read.metadata!, true);
      }
    }
    zip.addReadStreamLazy('manifest.csv', { mtime }, (callback) => callback(null, Readable.from([Buffer.from(stringify([[...MANIFEST_COLUMNS], ...manifest]), 'utf8')])));
    zip.end();
    await written;
  }

  /** One record's files as the export holds them (each part read at once, on its own connection). */
  private async readFiles(record: ExportRow, include: ReadonlySet<ExportPart>): Promise<RecordFiles> {
    const [pdf, auditTrailJson, metadata] = await Promise.all([
      include.has('pdf') && record.type !== 'notarization'
        ? this.deps.artifactStore.read(this.deps.orm.em.fork(), record.record_id, 'sealed_pdf').then((stored) => {
            if (!stored) throw new Error(`the sealed PDF of ${record.reference} is missing`);
            return { bytes: stored.bytes, sha256: stored.artifact.sha256 };
          })
        : null,
      include.has('audit_trail') ? auditTrail(this.deps.orm.em.fork(), record.record_id).then((entries) => auditTrailDocument({ id: record.record_id, reference: record.reference } as SignedRecord, entries)) : null,
      include.has('sealed_metadata')
        ? preparedQuery<{ metadata: string }>(this.deps.orm.em.fork(), 'select metadata from record_seals where record_id = ?', [record.record_id]).then(([seal]) => Buffer.from(seal!.metadata, 'utf8'))
        : null,
    ]);
    return { pdf, auditTrail: auditTrailJson, metadata };
  }

  /** An export the caller may see: its own, or its team's (a member of it); any other is not found. */
  private async visible(em: EntityManager, caller: Principal, id: string, operation: 'exports.get' | 'exports.issueDownload'): Promise<RecordExport> {
    const row = isUuid(id) ? await em.findOne(RecordExport, { id: id.toLowerCase() }) : null;
    if (!row) throw DomainError.notFound('Export');
    if (row.teamId !== null) await requireTeamRole(em, caller, row.teamId, operation);
    else if (row.owner !== caller.identityId) throw DomainError.notFound('Export');
    return row;
  }

  /** A ready export past its expiry reads as expired until the sweep removes it. */
  private current(row: RecordExport): RecordExport {
    if (row.status === 'ready' && row.expiresAt && row.expiresAt <= this.deps.clock.now()) row.status = 'expired';
    return row;
  }
}

function view(row: RecordExport): ExportView {
  return {
    id: row.id,
    teamId: row.teamId,
    status: row.status,
    include: [...row.include],
    total: row.total,
    processed: row.processed,
    createdAt: row.createdAt,
    readyAt: row.readyAt,
    expiresAt: row.expiresAt,
  };
}
