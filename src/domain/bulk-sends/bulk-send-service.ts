import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { requireAccess, TEAM_OPERATION_ROLES } from '../identity/operation-access.js';
import type { Principal } from '../identity/principal.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, type ValidationIssue } from '../shared/errors.js';
import type { DomainEvents } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import type { InitiatedVia } from '../records/entities.js';
import type { RecordService } from '../records/record-service.js';
import { inOneTransaction, type SharedTransaction } from '../records/record-lock.js';
import { readerOf, readerTeams, requireTeamRole, roleAtLeast } from '../teams/team-access.js';
import type { TemplateService } from '../templates/template-service.js';
import { contentOf, draftFromTemplate, type TemplateContent } from '../templates/template-draft.js';
import { BulkSend, BulkSendRow, type BulkSendRowInput, type BulkSendStatus } from './entities.js';
import { bulkSendRows, type BulkSendRowsInput } from './bulk-send-input.js';
import { checkSubmit, type BulkSubmitSteps } from './bulk-submit.js';

export type StartBulkSendInput = BulkSendRowsInput & { submit?: boolean | null };

type BulkSendFailure = { row: number; recordId: string | null; issues: ValidationIssue[] };

export type BulkSendView = {
  id: string;
  templateId: string;
  templateVersion: number;
  teamId: string | null;
  status: BulkSendStatus;
  submit: boolean;
  total: number;
  /** Rows done either way: created (submitted ones included) or failed. */
  processed: number;
  created: number;
  submitted: number;
  failed: number;
  failures: BulkSendFailure[];
  createdAt: Date;
  finishedAt: Date | null;
};

/** Rows one job makes at once (each in its own transaction, each holding a pooled connection meanwhile). */
const BULK_SEND_ROWS_AT_ONCE = 4;

/** The bulk sends a listing shows at most (newest first). */
export const BULK_SENDS_LISTED = 100;

/**
 * Many records from one template: every row is checked at the request exactly as a single create
 * from the template would check it (refused rows are stored failed with those issues), then a job
 * makes the good rows' records one transaction per row. A row's record and the row's link to it
 * commit together, and rows are claimed `for update skip locked`: a job interrupted and resumed (on
 * this instance or another) never makes a row's record twice.
 */
export class BulkSendService {
  private enqueue: ((bulkSendId: string) => Promise<unknown>) | null = null;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      events: DomainEvents;
      records: RecordService;
      templates: TemplateService;
      /** Signs (the api_key method) and submits a row's draft in the row's transaction. */
      submit: BulkSubmitSteps;
      /** Told after each change of a bulk send's counts or status (the progress subscription listens). */
      progressed: (bulkSendId: string) => void;
    },
  ) {}

  /** The job queue that makes the records (none: an instance without jobs, whose batches another instance's sweep takes). */
  useQueue(enqueue: (bulkSendId: string) => Promise<unknown>): void {
    this.enqueue = enqueue;
  }

  async start(principal: Principal | null, templateId: string, input: StartBulkSendInput, via: InitiatedVia): Promise<BulkSendView> {
    const caller = requireAccess(principal, 'bulkSends.start');
    const { template, teamId } = await this.deps.templates.usable(caller, templateId, 'bulkSends.start');
    const content = contentOf(template);
    const rows = bulkSendRows(content, input);
    const submit = input.submit === true;
    if (submit) checkSubmit(caller, content);
    // The refusals every row would share (a team's key that cannot initiate, a role too low) refuse the request.
    await this.deps.records.checkTeam(caller, teamId, content.recordType);
    const checked = await this.checkRows(caller, content, teamId, rows);
    const now = this.deps.clock.now();
    const failed = checked.filter((row) => row.issues !== null).length;
    const bulkSend = await this.deps.orm.em.fork().transactional(async (em) => {
      const bulk = em.create(BulkSend, {
        owner: caller.identityId,
        teamId,
        templateId: content.id,
        templateVersion: content.version,
        template: content,
        initiator: caller,
        via,
        submit,
        status: failed === rows.length ? 'completed' : 'queued',
        total: rows.length,
        createdAt: now,
        finishedAt: failed === rows.length ? now : null,
      });
      for (const [index, row] of checked.entries()) {
        em.create(BulkSendRow, { bulkSend: bulk.id, rowNumber: index + 1, input: row.input, status: row.issues ? 'failed' : 'pending', issues: row.issues });
      }
      await em.flush();
      return bulk;
    });
    if (bulkSend.status !== 'completed') await this.kick(bulkSend.id);
    return view(bulkSend, { created: 0, submitted: 0, failures: failuresOf(checked) });
  }

  async get(principal: Principal | null, id: string): Promise<BulkSendView> {
    const caller = requireAccess(principal, 'bulkSends.get');
    const em = this.deps.orm.em.fork();
    const bulk = await this.visible(em, caller, id);
    return view(bulk, (await this.tallies(em, [bulk.id])).get(bulk.id)!);
  }

  async list(principal: Principal | null, teamId?: string | null): Promise<BulkSendView[]> {
    const caller = requireAccess(principal, 'bulkSends.list');
    const em = this.deps.orm.em.fork();
    if (teamId) await requireTeamRole(em, caller, teamId, 'bulkSends.list');
    const where = teamId ? { teamId: teamId.toLowerCase() } : { owner: caller.identityId, teamId: null };
    const rows = await em.find(BulkSend, where, { orderBy: { createdAt: 'desc', id: 'asc' }, limit: BULK_SENDS_LISTED });
    const tallies = await this.tallies(em, rows.map((row) => row.id));
    return rows.map((row) => view(row, tallies.get(row.id)!));
  }

  /**
   * Makes the records of a bulk send's pending rows, one transaction per row, until none is left;
   * then marks it completed. Safe to run twice at once and after a crash: a row is claimed with
   * `for update skip locked`, and its record, its status and the counts commit together.
   */
  async process(bulkSendId: string): Promise<{ created: number; failed: number }> {
    const bulk = await this.deps.orm.em.fork().findOne(BulkSend, { id: bulkSendId });
    if (!bulk || bulk.status === 'completed') return { created: 0, failed: 0 };
    if (bulk.status === 'queued') {
      await this.deps.orm.em.fork().nativeUpdate(BulkSend, { id: bulk.id, status: 'queued' }, { status: 'running' });
      this.deps.progressed(bulk.id);
    }
    let created = 0;
    let failed = 0;
    // A few rows at once, each in its own transaction: a row's time is mostly the database's, and
    // `skip locked` gives each loop a row no other holds.
    const loop = async () => {
      for (;;) {
        let claimed: { rowNumber: number } | null = null;
        try {
          const done = await inOneTransaction(this.deps.orm, this.deps.events, async (within) => {
            const row = await claimRow(within.em, bulk.id);
            if (!row) return false;
            claimed = row;
            await this.makeRecord(bulk, row, within);
            return true;
          });
          if (!done) return;
          created += 1;
        } catch (error) {
          // A row the service refuses now (a contact that became invalid, a team role lost): that row fails, the batch goes on.
          if (!(error instanceof DomainError) || claimed === null) throw error;
          await this.failRow(bulk.id, (claimed as { rowNumber: number }).rowNumber, issuesOf(error));
          failed += 1;
        }
        this.deps.progressed(bulk.id);
      }
    };
    await Promise.all(Array.from({ length: BULK_SEND_ROWS_AT_ONCE }, loop));
    const finished = await this.deps.orm.em
      .fork()
      .getConnection()
      .execute(
        `update bulk_sends set status = 'completed', finished_at = ? where id = ? and status <> 'completed' and not exists (select 1 from bulk_send_rows where bulk_send_id = ? and status = 'pending')`,
        [this.deps.clock.now(), bulk.id, bulk.id],
        'run',
      );
    if ((finished as { affectedRows?: number }).affectedRows) this.deps.progressed(bulk.id);
    return { created, failed };
  }

  /** Bulk sends not completed whose job may be lost (an instance gone, a queue emptied): their job is asked for again. */
  async resumeUnfinished(): Promise<number> {
    const open = await this.deps.orm.em.fork().find(BulkSend, { status: { $ne: 'completed' } }, { fields: ['id'], limit: 100 });
    for (const bulk of open) await this.kick(bulk.id);
    return open.length;
  }

  private async kick(bulkSendId: string): Promise<void> {
    await this.enqueue?.(bulkSendId);
  }

  private async makeRecord(bulk: BulkSend, row: { rowNumber: number; input: BulkSendRowInput }, within: SharedTransaction): Promise<void> {
    const { em } = within;
    // The job acts as the caller who asked: a key revoked (or expired) since then makes nothing more.
    if (bulk.initiator.kind === 'api_key') {
      const [key] = await em.execute<{ id: string }[]>(`select id from api_keys where id = ? and revoked_at is null and (expires_at is null or expires_at > ?)`, [bulk.initiator.apiKeyId, this.deps.clock.now()]);
      if (!key) throw new DomainError('unauthenticated', 'The API key that started this bulk send was revoked or has expired');
    }
    const draft = draftFromTemplate(bulk.template, row.input, bulk.teamId);
    const record = await this.deps.records.create(bulk.initiator, draft, bulk.via, { templateId: bulk.templateId, templateVersion: bulk.templateVersion }, within);
    if (bulk.submit) await this.deps.submit.signAndSubmit(bulk.initiator, record.id, bulk.id, within);
    const status = bulk.submit ? 'submitted' : 'created';
    // The row alone: the counts are its status, so concurrent rows never wait on one counter's lock.
    await em.execute(`update bulk_send_rows set status = ?, record_id = ? where bulk_send_id = ? and row_number = ?`, [status, record.id, bulk.id, row.rowNumber]);
  }

  private async failRow(bulkSendId: string, rowNumber: number, issues: ValidationIssue[]): Promise<void> {
    await this.deps.orm.em
      .fork()
      .getConnection()
      .execute(`update bulk_send_rows set status = 'failed', issues = ? where bulk_send_id = ? and row_number = ? and status = 'pending'`, [JSON.stringify(issues), bulkSendId, rowNumber], 'run');
  }

  /** Each row's issues as a single create from the template gives them, or null for a row that will make its record. */
  private async checkRows(caller: Principal, template: TemplateContent, teamId: string | null, rows: BulkSendRowInput[]): Promise<{ input: BulkSendRowInput; issues: ValidationIssue[] | null }[]> {
    const drafts = rows.map((row) => {
      try {
        return { draft: draftFromTemplate(template, row, teamId), issues: null };
      } catch (error) {
        return { draft: null, issues: issuesOf(error) };
      }
    });
    const refusals = await this.deps.records.check(caller, drafts.flatMap((d) => (d.draft ? [d.draft] : [])));
    let next = 0;
    return rows.map((input, index) => {
      const { draft, issues } = drafts[index]!;
      if (!draft) return { input, issues };
      const refusal = refusals[next++];
      return { input, issues: refusal ? issuesOf(refusal) : null };
    });
  }

  /** The caller's own bulk send, or their team's (a role in it); else not found. */
  private async visible(em: EntityManager, caller: Principal, id: string): Promise<BulkSend> {
    const bulk = isUuid(id) ? await em.findOne(BulkSend, { id: id.toLowerCase() }) : null;
    if (bulk && bulk.teamId === null && bulk.owner === caller.identityId && !(caller.kind === 'api_key' && caller.teamKey)) return bulk;
    const role = bulk?.teamId ? (await readerTeams(em, readerOf(caller))).get(bulk.teamId) : undefined;
    if (!bulk || !role || !roleAtLeast(role, TEAM_OPERATION_ROLES['bulkSends.get'])) throw DomainError.notFound('Bulk send');
    return bulk;
  }

  /** Each bulk send's counts, from its rows' statuses, and its failed rows. */
  private async tallies(em: EntityManager, ids: string[]): Promise<Map<string, Tally>> {
    const tallies = new Map<string, Tally>(ids.map((id) => [id, { created: 0, submitted: 0, failures: [] }]));
    if (ids.length === 0) return tallies;
    const counts = await em.execute<{ bulk_send_id: string; status: BulkSendRow['status']; n: string }[]>(
      `select bulk_send_id, status, count(*) as n from bulk_send_rows where bulk_send_id in (?) and status in ('created', 'submitted') group by bulk_send_id, status`,
      [ids],
    );
    for (const { bulk_send_id: id, status, n } of counts) {
      const tally = tallies.get(id)!;
      tally.created += Number(n);
      if (status === 'submitted') tally.submitted += Number(n);
    }
    const failed = await em.find(BulkSendRow, { bulkSend: { $in: ids }, status: 'failed' }, { orderBy: { bulkSend: 'asc', rowNumber: 'asc' } });
    for (const row of failed) tallies.get(row.bulkSend)!.failures.push({ row: row.rowNumber, recordId: row.recordId, issues: row.issues ?? [] });
    return tallies;
  }
}

/** The next pending row, locked for this transaction; rows another transaction holds are skipped. */
async function claimRow(em: EntityManager, bulkSendId: string): Promise<{ rowNumber: number; input: BulkSendRowInput } | null> {
  const [row] = await em.execute<{ row_number: number; input: BulkSendRowInput }[]>(
    `select row_number, input from bulk_send_rows where bulk_send_id = ? and status = 'pending' order by row_number limit 1 for update skip locked`,
    [bulkSendId],
  );
  return row ? { rowNumber: row.row_number, input: row.input } : null;
}

/** A refusal's issues as a row reports them: a validation error's own, else one issue saying what refused it. */
function issuesOf(error: unknown): ValidationIssue[] {
  if (!(error instanceof DomainError)) throw error;
  return error.details.issues?.length ? error.details.issues : [{ path: [], message: error.message, type: error.code }];
}

function failuresOf(rows: { issues: ValidationIssue[] | null }[]): BulkSendFailure[] {
  return rows.flatMap((row, index) => (row.issues ? [{ row: index + 1, recordId: null, issues: row.issues }] : []));
}

/** What a bulk send's rows say: records made (submitted ones included), submitted, and the failed rows. */
type Tally = { created: number; submitted: number; failures: BulkSendFailure[] };

function view(bulk: BulkSend, { created, submitted, failures }: Tally): BulkSendView {
  const { id, templateId, templateVersion, teamId, status, submit, total, createdAt, finishedAt } = bulk;
  const failed = failures.length;
  return {
    id,
    templateId,
    templateVersion,
    teamId,
    status,
    submit,
    total,
    processed: created + failed,
    created,
    submitted,
    failed,
    failures: failures.map(({ row, recordId, issues }) => ({ row, recordId, issues })),
    createdAt,
    finishedAt,
  };
}
