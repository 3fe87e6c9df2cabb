import { OptimisticLockError, UniqueConstraintViolationException, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import { requireAuthenticated, type Principal } from '../identity/principal.js';
import { requireAccess } from '../identity/operation-access.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { Participant, RECORD_STATUSES, RECORD_TYPES, SignedRecord, type InitiatedVia, type RecordType } from './entities.js';
import { transition } from './lifecycle.js';
import { canRead, findRecord, findRecordAsReader, readableRecordIds, recordKeyOf, viewerFor } from './record-access.js';
import { readRecords } from './record-read-model.js';
import { LIMITS } from '../text-rules.js';
import {
  normalizeParties,
  optionalText,
  validateBody,
  validateLapseDays,
  validateMethodCount,
  validateParticipantsForType,
  validateReminders,
  validateSigningOrder,
  type CreateRecordInput,
  type NormalizedParty,
  type UpdateRecordInput,
} from './record-input.js';
import { actsAsInitiator, recordData, toRecordView, type RecordView } from './record-view.js';
import { readerKey, readerOf, requireTeamRole, teamOfNewRecord } from '../teams/team-access.js';
import { addInitiator, initiatorContactOf, type InitiatorContact } from './initiator.js';
import type { SharedTransaction } from './record-lock.js';
import { signatureSummaries } from '../ceremonies/signature-summary.js';
import { SignatureExecution } from '../ceremonies/entities.js';
import { newRecordReference } from './reference.js';
import { textHash } from './text.js';
import { openAuditTrail } from './audit-trail.js';
import type { SealingSettings } from '../sealing/sealing-view.js';
import type { AnswerCache } from '../shared/answer-cache.js';

export type RecordPage = { records: RecordView[]; total: number; limit: number; offset: number };

/**
 * Any offset the contract's int32 can say (the spec asks only `>= 0`): a page walks the caller's own
 * records only (the identity's index), so a deep page costs the caller's own list, never another's.
 */
export const MAX_LIST_OFFSET = 2_147_483_647;
/** Longest `status` / `type` filter value of a record listing. */
export const MAX_FILTER_LENGTH = 64;

export type ListRecordsInput = { status?: string | null; type?: string | null; teamId?: string | null; limit?: number | null; offset?: number | null };

/** Creating, editing and reading records. Status changes go through the lifecycle table. */
export class RecordService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      sealing: SealingSettings;
      /**
       * Identities' listing pages and record reads, kept in memory (none without). Dropped whenever
       * anything a record view is made from changes, on any instance and by any path (see AnswerCache
       * and the `RECORDS_CHANGED` notification of the record_change_notifications migration).
       */
      caches?: { listings: AnswerCache<RecordPage> | null; views: AnswerCache<RecordView> | null };
    },
  ) {}

  /**
   * `origin`: the template (and its version) the record is made from, remembered read-only.
   * `within`: part of a shared transaction (a bulk send's row), which commits the record with what
   * else it changes; a reference collision then fails that transaction (its retry draws another).
   */
  async create(
    principal: Principal | null,
    input: CreateRecordInput,
    via: InitiatedVia,
    origin: { templateId: string; templateVersion: number } | null = null,
    within?: SharedTransaction,
  ): Promise<RecordView> {
    const caller = requireAccess(principal, createOperation(input));
    const em = within?.em ?? this.deps.orm.em.fork();
    const draft = checkNewRecord(input, await initiatorContactOf(em, caller));
    const teamId = await teamOfNewRecord(em, caller, input.teamId, true, createOperation(input));
    const record = this.insert(em, caller, draft, teamId, via, origin);
    if (within) await em.flush();
    else await this.flushWithFreshReference(em, record);
    return toRecordView(recordData(record), await viewerFor(em, readerOf(caller)));
  }

  /**
   * What `create` would refuse of each input for this caller (422 naming the fields), without creating
   * anything: a bulk send checks its rows with it before it stores them (the team's part: `checkTeam`).
   */
  async check(principal: Principal | null, inputs: readonly CreateRecordInput[]): Promise<(DomainError | null)[]> {
    const em = this.deps.orm.em.fork();
    const caller = requireAuthenticated(principal);
    const contact = await initiatorContactOf(em, caller);
    const outcomes: (DomainError | null)[] = [];
    for (const input of inputs) {
      try {
        requireAccess(caller, createOperation(input));
        checkNewRecord(input, contact);
        outcomes.push(null);
      } catch (error) {
        outcomes.push(refusal(error));
      }
    }
    return outcomes;
  }

  /** What `create` would refuse of a new record of this team (none: the caller's own) and type for the team's sake (a role too low, a team's key that cannot initiate). */
  async checkTeam(principal: Principal | null, teamId: string | null, type: RecordType): Promise<void> {
    const caller = requireAccess(principal, createOperation({ type }));
    await teamOfNewRecord(this.deps.orm.em.fork(), caller, teamId, true, createOperation({ type }));
  }

  private insert(em: EntityManager, caller: Principal, draft: CheckedRecord, teamId: string | null, via: InitiatedVia, origin: { templateId: string; templateVersion: number } | null): SignedRecord {
    const { type, input, title, summary, jurisdiction, lapseDays, methodCount, signingOrder, reminders, parties, witnesses, initiatorContact } = draft;
    const now = this.deps.clock.now();
    const record = em.create(SignedRecord, {
      reference: newRecordReference(),
      type,
      status: 'draft',
      title,
      body: input.body.normalize('NFC'),
      bodyHash: textHash(input.body),
      summary,
      jurisdiction,
      initiatedVia: via,
      requiredSignatureMethodCount: methodCount,
      lapseDays,
      signingOrder,
      ...reminders,
      onChainFullText: input.onChainFullText,
      onChainIncludeVerifiedParties: input.onChainIncludeVerifiedParties,
      initiatorIdentity: caller.identityId,
      teamId,
      templateId: origin?.templateId ?? null,
      templateVersion: origin?.templateVersion ?? null,
      notarization:
        type === 'notarization'
          ? {
              contentType: 'text',
              contentHash: textHash(input.body),
              hashAlgorithm: 'sha256',
              filename: null,
              sizeBytes: null,
              mimeType: null,
              label: title,
              textPublic: false,
              signatureMode: 'pending_signature',
              agentIdentifier: null,
            }
          : null,
      createdAt: now,
      updatedAt: now,
    });
    addInitiator(em, record, initiatorContact, caller.identityId, now);
    addParticipants(em, record, 'party', parties, 1, now);
    addParticipants(em, record, 'witness', witnesses, 1 + parties.length, now);
    openAuditTrail(em, record.id, now, 'create');
    return record;
  }

  async get(principal: Principal | null, idOrReference: string): Promise<RecordView> {
    return this.read(requireAccess(principal, 'records.get'), idOrReference);
  }

  /**
   * The record as a change's answer: the change itself was authorized with its own scope (a key
   * with only `verify` may finalize), so answering with the result needs no `retrieve` scope.
   */
  async afterChange(principal: Principal | null, idOrReference: string): Promise<RecordView> {
    return this.read(requireAuthenticated(principal), idOrReference);
  }

  /**
   * Whether the caller may read the record (scope retrieve and identity graph), and with `teamId`
   * whether it is that team's; never throws for a missing one.
   */
  async isReadable(principal: Principal | null, idOrReference: string, teamId: string | null = null): Promise<boolean> {
    const caller = requireAccess(principal, 'records.activity');
    const em = this.deps.orm.em.fork();
    const record = await findRecord(em, idOrReference);
    if (record === null || (teamId !== null && record.teamId !== teamId.toLowerCase())) return false;
    return canRead(record, await viewerFor(em, readerOf(caller)));
  }

  /** One statement: the record, what its view needs and the viewer (record-read-model.ts). */
  private async read(caller: Principal, idOrReference: string): Promise<RecordView> {
    const key = recordKeyOf(idOrReference);
    if (!key) throw DomainError.notFound('Record');
    const reader = readerOf(caller);
    const load = async (): Promise<RecordView> => {
      const { viewer, models } = await readRecords(this.deps.orm.em.fork(), key, reader, this.deps.sealing);
      const [model] = models;
      // Outside the viewer's identity graph answers exactly like missing (references cannot be probed).
      if (!model || !canRead(model.record, viewer)) throw DomainError.notFound('Record');
      return toRecordView(model.record, viewer, model.signatures, model.counter, model.sealing);
    };
    // The view depends on the record and on who reads it (their identity's contact points) only;
    // a miss (not found) is never kept.
    const views = this.deps.caches?.views;
    return views ? views.get(`${readerKey(reader)}\u0000${idOrReference}`, load, () => true) : load();
  }

  async list(principal: Principal | null, input: ListRecordsInput): Promise<RecordPage> {
    const caller = requireAccess(principal, 'records.list');
    const limit = input.limit ?? LIMITS.pageSize.default;
    const offset = input.offset ?? 0;
    const issues = new IssueCollector();
    const { min, max } = LIMITS.pageSize;
    if (!Number.isInteger(limit) || limit < min || limit > max) issues.add(['limit'], `Must be from ${min} to ${max}`, 'out_of_range');
    if (!Number.isInteger(offset) || offset < 0 || offset > MAX_LIST_OFFSET) issues.add(['offset'], `Must be an integer from 0 to ${MAX_LIST_OFFSET}`, 'out_of_range');
    // GraphQL's filters take any string (REST's contract enumerates them): a value that is no status or type matches no record.
    for (const field of ['status', 'type'] as const) {
      if ((input[field]?.length ?? 0) > MAX_FILTER_LENGTH) issues.add([field], `At most ${MAX_FILTER_LENGTH} characters`, 'too_long');
    }
    issues.throwIfAny();
    const known = (!input.status || (RECORD_STATUSES as readonly string[]).includes(input.status)) && (!input.type || (RECORD_TYPES as readonly string[]).includes(input.type));
    if (!known) return { records: [], total: 0, limit, offset };
    const reader = readerOf(caller);
    // A team's listing needs a role in it (checked on every call: a removed member is refused at once);
    // a team's key lists its team's records.
    const team = input.teamId ?? (caller.kind === 'api_key' && caller.teamKey ? caller.identityId : null);
    if (team !== null) await requireTeamRole(this.deps.orm.em.fork(), caller, team, 'records.list');
    const filter = { status: input.status, type: input.type, team: team?.toLowerCase() ?? null, limit, offset };
    const load = async (): Promise<RecordPage> => {
      const em = this.deps.orm.em.fork();
      const { ids, total } = await readableRecordIds(em, caller.identityId, filter);
      const { viewer, models } = await readRecords(em, { ids }, reader, this.deps.sealing);
      return { records: models.map((m) => toRecordView(m.record, viewer, m.signatures, m.counter, m.sealing)), total, limit, offset };
    };
    const listings = this.deps.caches?.listings;
    if (!listings) return load();
    // The page depends on the identity (whose records, seen through which contact points) and the filter only.
    const key = [readerKey(reader), filter.team ?? '', filter.status ?? '', filter.type ?? '', limit, offset].join('\u0000');
    return listings.get(key, load, () => true);
  }

  /** Edits a draft. Only the initiator may; a body change starts a new version and resets the initiator's signature. */
  async update(principal: Principal | null, idOrReference: string, input: UpdateRecordInput): Promise<RecordView> {
    const caller = requireAccess(principal, 'records.update');
    const em = this.deps.orm.em.fork();
    const { record, viewer } = await findRecordAsReader(em, idOrReference, readerOf(caller));
    if (!actsAsInitiator(record, viewer)) {
      throw new DomainError('forbidden', 'Only the initiator can edit a draft');
    }
    transition(record.status, 'edit_draft');
    const issues = new IssueCollector();
    const has = (field: keyof UpdateRecordInput) => input[field] !== undefined;
    if (Object.values(input).every((value) => value === undefined)) {
      issues.add([], 'Give at least one field to change', 'empty_update');
    }
    if (has('body')) validateBody(issues, input.body);
    const title = has('title') ? optionalText(issues, input.title, 'title', LIMITS.title) : record.title;
    const summary = has('summary') ? optionalText(issues, input.summary, 'summary', LIMITS.summary) : record.summary;
    const jurisdiction = has('jurisdiction')
      ? optionalText(issues, input.jurisdiction, 'jurisdiction', LIMITS.jurisdiction)
      : record.jurisdiction;
    const lapseDays = has('lapseDays') ? validateLapseDays(issues, input.lapseDays) : record.lapseDays;
    const methodCount = has('requiredSignatureMethodCount')
      ? validateMethodCount(issues, input.requiredSignatureMethodCount)
      : record.requiredSignatureMethodCount;
    for (const flag of ['onChainFullText', 'onChainIncludeVerifiedParties'] as const) {
      if (input[flag] === null) issues.add([flag], 'Must be true or false', 'not_nullable');
    }
    const current = record.participants.getItems().filter((p) => p.removedAt === null);
    const asInput = (role: 'party' | 'witness'): NormalizedParty[] =>
      current
        .filter((p) => p.role === role)
        .map((p) => ({ displayName: p.displayName ?? '', contactPointType: p.contactPointType, contactPointValue: p.contactPointValue ?? '' }));
    const rejectAliases = record.type === 'notarization';
    const parties = has('parties')
      ? normalizeParties(issues, 'parties', input.parties, LIMITS.parties, { rejectAliases })
      : asInput('party');
    const witnesses = has('witnesses') ? normalizeParties(issues, 'witnesses', input.witnesses, LIMITS.witnesses) : asInput('witness');
    const initiator = current.find((p) => p.role === 'initiator');
    const initiatorContact = initiator?.contactPointValue ? { type: initiator.contactPointType, value: initiator.contactPointValue } : null;
    validateParticipantsForType(issues, record.type, parties, witnesses, initiatorContact);
    issues.throwIfAny();

    const now = this.deps.clock.now();
    // What a signer agrees to: a change to any of it voids signing work already done on this version.
    const termsChanged =
      title !== record.title ||
      jurisdiction !== record.jurisdiction ||
      methodCount !== record.requiredSignatureMethodCount ||
      (input.onChainFullText != null && input.onChainFullText !== record.onChainFullText) ||
      (input.onChainIncludeVerifiedParties != null && input.onChainIncludeVerifiedParties !== record.onChainIncludeVerifiedParties) ||
      has('parties') ||
      has('witnesses');
    const bodyChanged = input.body !== undefined && input.body !== null && textHash(input.body) !== record.bodyHash;
    const signingStarted =
      initiator !== undefined &&
      (initiator.confirmedVersion === record.currentVersion ||
        (await em.count(SignatureExecution, { participant: initiator, recordVersion: record.currentVersion })) > 0);
    Object.assign(record, { title, summary, jurisdiction, lapseDays, requiredSignatureMethodCount: methodCount });
    if (input.onChainFullText != null) record.onChainFullText = input.onChainFullText;
    if (input.onChainIncludeVerifiedParties != null) record.onChainIncludeVerifiedParties = input.onChainIncludeVerifiedParties;
    if (record.notarization && has('title')) record.notarization = { ...record.notarization, label: title };
    if (bodyChanged) {
      record.body = input.body!.normalize('NFC');
      record.bodyHash = textHash(input.body!);
      if (record.notarization) record.notarization = { ...record.notarization, contentHash: record.bodyHash };
    }
    // A new text is always a new version; other term changes start one only when signing had begun.
    if (bodyChanged || (termsChanged && signingStarted)) {
      record.currentVersion += 1;
      if (initiator) {
        initiator.confirmedAt = null;
        initiator.confirmedVersion = null;
      }
    }
    if (has('parties')) replaceParticipants(em, record, current, 'party', parties, now);
    if (has('witnesses')) replaceParticipants(em, record, current, 'witness', witnesses, now);
    record.updatedAt = now;
    try {
      await em.flush();
    } catch (error) {
      if (error instanceof OptimisticLockError) {
        throw new DomainError('stale_version', 'The record changed while you were editing it; read it again and retry');
      }
      throw error;
    }
    return toRecordView(recordData(record), viewer, await signatureSummaries(em, [record]));
  }

  /** References are random; on the rare collision draw another. */
  private async flushWithFreshReference(em: EntityManager, record: SignedRecord): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await em.flush();
        return;
      } catch (error) {
        if (!(error instanceof UniqueConstraintViolationException) || attempt >= 4) throw error;
        record.reference = newRecordReference();
      }
    }
  }
}

function addParticipants(
  em: EntityManager,
  record: SignedRecord,
  role: 'party' | 'witness',
  list: NormalizedParty[],
  firstPosition: number,
  now: Date,
): void {
  list.forEach((party, index) =>
    em.create(Participant, { record, role, position: firstPosition + index, ...party, invitedAt: now }),
  );
}

/** Drafts have no signatures from others yet, so their participant rows can simply be replaced. */
function replaceParticipants(
  em: EntityManager,
  record: SignedRecord,
  current: Participant[],
  role: 'party' | 'witness',
  list: NormalizedParty[],
  now: Date,
): void {
  for (const old of current.filter((p) => p.role === role)) {
    record.participants.remove(old);
    em.remove(old);
  }
  const nextPosition = Math.max(0, ...record.participants.getItems().map((p) => p.position)) + 1;
  addParticipants(em, record, role, list, nextPosition, now);
}

const createOperation = (input: Pick<CreateRecordInput, 'type'>) => (input.type === 'declaration' ? 'records.createDeclaration' : 'records.createAgreement');

type CheckedRecord = ReturnType<typeof checkNewRecord>;

/** A new record's fields, checked and normalized: every issue at once (422), nothing read from the database. */
function checkNewRecord(input: CreateRecordInput, initiatorContact: InitiatorContact | null) {
  const type: RecordType = input.type ?? 'agreement';
  const issues = new IssueCollector();
  if (!RECORD_TYPES.includes(type)) issues.add(['type'], `Type must be one of ${RECORD_TYPES.join(', ')}`, 'invalid_enum');
  validateBody(issues, input.body);
  const title = optionalText(issues, input.title, 'title', LIMITS.title);
  const summary = optionalText(issues, input.summary, 'summary', LIMITS.summary);
  const jurisdiction = optionalText(issues, input.jurisdiction, 'jurisdiction', LIMITS.jurisdiction);
  const lapseDays = validateLapseDays(issues, input.lapseDays);
  const methodCount = validateMethodCount(issues, input.requiredSignatureMethodCount);
  const signingOrder = validateSigningOrder(issues, input.signingOrder);
  const reminders = validateReminders(issues, input.reminders);
  const rejectAliases = type === 'notarization';
  const parties = normalizeParties(issues, 'parties', input.parties, LIMITS.parties, { rejectAliases });
  const witnesses = normalizeParties(issues, 'witnesses', input.witnesses, LIMITS.witnesses);
  validateParticipantsForType(issues, type, parties, witnesses, initiatorContact);
  issues.throwIfAny();
  return { type, input, title, summary, jurisdiction, lapseDays, methodCount, signingOrder, reminders, parties, witnesses, initiatorContact };
}

/** A refusal as a domain error (anything else is no refusal of the input: thrown on). */
function refusal(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  throw error;
}
