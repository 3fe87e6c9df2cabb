import { type EntityClass, type EntityDictionary, type EntityManager, type MikroORM, type Primary } from '@mikro-orm/postgresql';
import { preparedQuery } from '../shared/sql.js';
import { signingClosed } from '../records/lifecycle.js';
import { turnClosed } from '../records/signing-turn.js';
import type { Invitations } from '../records/invitations.js';
import type { Principal } from '../identity/principal.js';
import { requireAccess, type ScopedOperation } from '../identity/operation-access.js';
import type { SignedRecord, Participant, RecordType } from '../records/entities.js';
import { canRead, findReadableRecordFor, findRecordAsReader, lockRecordRow, signerSnapshot, type SignatureRows, type SignerRow } from '../records/record-access.js';
import { isViewerParticipant, type Viewer } from '../records/record-view.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { readerOf } from '../teams/team-access.js';
import { lifecycle, signatureProgress, type DomainEvents, type RecordLifecycleEvent, type SignatureProgressEvent } from '../shared/events.js';
import { completeIfAllSigned } from '../records/completion.js';
import type { SharedTransaction } from '../records/record-lock.js';
import type { RateLimitRule, RateLimiter } from '../shared/rate-limiter.js';
import { SIGNATURE_METHOD_TYPES, SignatureExecution, SignatureMethod, type SignatureMethodType } from './entities.js';
import { canFinalize, satisfiedCount, toExecutionView, type ExecutionView } from './execution-view.js';
import { identiconFromDigest, sha256Hex } from './identicon.js';
import type { MethodContext, MethodOutcome, SignatureMethodAdapter, StepPreview } from './methods/method.js';

type Loaded = {
  em: EntityManager;
  record: SignedRecord;
  participant: Participant;
  principal: Principal;
  viewer: Viewer;
  announced: SignatureProgressEvent[];
  lifecycle: RecordLifecycleEvent[];
  /**
   * Rows read with the locked record (`SignatureRows`), each part used once: the first execution
   * lookup takes the executions, the first read of that execution's methods takes its methods.
   */
  read: { executions?: SignatureRows['executions']; allMethods?: SignatureRows['methods']; methods?: { executionId: string; rows: SignatureRows['methods'] } };
};

/** The operation each method step runs, as the access declaration names it. */
const STEP_OPERATIONS = {
  start: 'ceremony.startMethod',
  submit: 'ceremony.submitMethod',
  refresh: 'ceremony.refreshMethod',
  cancel: 'ceremony.cancelMethod',
} as const satisfies Record<StepPreview['action'], ScopedOperation>;

/**
 * The signature ceremony: a participant proves intent for one exact record version by satisfying
 * the required number of distinct methods, then finalizes. Authentication never counts.
 */
export class CeremonyService {
  private readonly adapters: Map<SignatureMethodType, SignatureMethodAdapter>;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      /** One adapter per signature method (methods/). */
      methods: SignatureMethodAdapter[];
      events: DomainEvents;
      rateLimiter: RateLimiter;
      /** In sequential order, a signature invites the next signer (in its own transaction). */
      invitations: Pick<Invitations, 'inviteDue'>;
      startLimit: RateLimitRule;
    },
  ) {
    this.adapters = new Map(deps.methods.map((adapter) => [adapter.type, adapter]));
  }

  /** The methods this signer can use, in the contract's order. */
  private methodsFor(loaded: Pick<Loaded, 'record' | 'participant' | 'principal'>): SignatureMethodType[] {
    return SIGNATURE_METHOD_TYPES.filter((type) => {
      const adapter = this.adapters.get(type);
      return adapter !== undefined && (adapter.appliesTo?.(loaded) ?? true);
    });
  }

  /** Starts the caller's execution for the current version, or resumes it. */
  async startOrResume(principal: Principal | null, idOrReference: string, only?: RecordType): Promise<ExecutionView> {
    return this.mutate(principal, idOrReference, { operation: 'ceremony.startExecution', only }, async (loaded) => {
      const { execution, created } = await this.currentExecution(loaded, true);
      // A new execution has no methods yet.
      const methods = created ? [] : await methodsOf(loaded, execution);
      if (created) this.announce(loaded, execution, methods, 'execution_started', null);
      return toExecutionView(execution, methods, this.methodsFor(loaded));
    });
  }

  async get(principal: Principal | null, idOrReference: string, only?: RecordType): Promise<ExecutionView> {
    const loaded = await this.load(this.deps.orm.em.fork(), principal, idOrReference, { operation: 'ceremony.getExecution', forRead: true, only });
    const { execution } = await this.currentExecution(loaded, false);
    const methods = await methodsOf(loaded, execution);
    return toExecutionView(execution, methods, this.methodsFor(loaded));
  }

  async startMethod(principal: Principal | null, idOrReference: string, type: string, hints: Record<string, unknown>): Promise<ExecutionView> {
    const adapter = this.adapter(type);
    return this.step(principal, idOrReference, adapter, 'start', hints, async (context, method) => {
      if (method.status === 'satisfied') throw new DomainError('conflict', `${type} is already satisfied for this version`);
      return adapter.start(context, hints);
    });
  }

  /** `recordVersion`: the version the input was given for (a secret-input link's): refused if the record has moved on since. */
  async submitMethod(principal: Principal | null, idOrReference: string, type: string, input: Record<string, unknown>, recordVersion?: number): Promise<ExecutionView> {
    const adapter = this.adapter(type);
    return this.step(
      principal,
      idOrReference,
      adapter,
      'submit',
      input,
      async (context, method) => {
        if (method.status === 'satisfied') throw new DomainError('conflict', `${type} is already satisfied for this version`);
        return adapter.submit(context, input);
      },
      recordVersion,
    );
  }

  async refreshMethod(principal: Principal | null, idOrReference: string, type: string): Promise<ExecutionView> {
    const adapter = this.adapter(type);
    return this.step(principal, idOrReference, adapter, 'refresh', {}, async (context, method) => {
      if (method.status !== 'pending' || !adapter.refresh) return null;
      return adapter.refresh(context);
    });
  }

  async cancelMethod(principal: Principal | null, idOrReference: string, type: string): Promise<ExecutionView> {
    const adapter = this.adapter(type);
    return this.step(principal, idOrReference, adapter, 'cancel', {}, async (_context, method) => {
      if (method.status !== 'pending') throw new DomainError('conflict', `Only a pending method can be cancelled; ${type} is ${method.status}`);
      return { status: 'failed', reason: 'cancelled' };
    });
  }

  /**
   * Records the signature: evidence bound to the version and the participant's signature
   * identicon. Returns the record id.
   */
  async finalize(
    principal: Principal | null,
    idOrReference: string,
    input: { acknowledgePublicVerifiedParties?: boolean | null },
    only?: RecordType,
  ): Promise<string> {
    return this.mutate(principal, idOrReference, { operation: 'ceremony.finalize', only }, async (loaded) => {
      await this.finalizeLoaded(loaded, input.acknowledgePublicVerifiedParties === true);
      return loaded.record.id;
    });
  }

  /**
   * `auto_seal` notarizations: the API key that created the record signs it with the `api_key`
   * method and finalizes at once. The explicit `signature_mode: auto_seal` of the creating request is
   * the confirmation (and the acknowledgement of its own on-chain settings); bearer and OAuth
   * sessions can never get here (NotarizationService refuses them).
   */
  async autoSeal(principal: Principal | null, recordId: string, within?: SharedTransaction): Promise<void> {
    await this.signWithApiKey(principal, recordId, { purpose: 'auto_seal' }, within);
  }

  /**
   * The API key that created a draft signs it as its initiator with the `api_key` method alone and
   * finalizes at once; the evidence names the key, what asked for it (an `auto_seal` notarization, or
   * the bulk send with `submit: true` whose row made the record), the record and its version. The
   * explicit request is the confirmation and the acknowledgement of the record's own on-chain
   * settings. Only an API key: sessions and OAuth can never create signature evidence (and for a bulk
   * send only a person's: a team never signs its records).
   */
  async signWithApiKey(principal: Principal | null, recordId: string, reason: { purpose: 'auto_seal' } | { purpose: 'bulk_send'; bulkSendId: string }, within?: SharedTransaction): Promise<void> {
    const only = reason.purpose === 'auto_seal' ? 'notarization' : undefined;
    await this.mutate(principal, recordId, { operation: 'ceremony.finalize', only, within }, async (loaded) => {
      // A team's key seals its team's auto_seal notarizations (the team signs nothing there); a bulk send's drafts are a person's.
      const allowed = reason.purpose === 'auto_seal' ? loaded.record.notarization?.signatureMode === 'auto_seal' : loaded.record.status === 'draft' && !(loaded.principal.kind === 'api_key' && loaded.principal.teamKey);
      if (loaded.principal.kind !== 'api_key' || !allowed) {
        throw new DomainError('forbidden', reason.purpose === 'auto_seal' ? 'Only an auto_seal notarization created with an API key signs itself' : "Only a person's API key signs the drafts of its bulk send");
      }
      const { execution } = await this.currentExecution(loaded, true);
      const now = this.deps.clock.now();
      const method = loaded.em.create(SignatureMethod, { execution, methodType: 'api_key', status: 'pending' });
      const origin = reason.purpose === 'auto_seal' ? 'auto_seal' : `bulk_send|${reason.bulkSendId}`;
      const evidence = `api_key|${origin}|${loaded.principal.apiKeyId}|${loaded.record.id}|${execution.recordVersion}|${loaded.record.bodyHash}`;
      this.announce(loaded, execution, [method], 'execution_started', null);
      const event = applyOutcome(method, { status: 'satisfied', evidence, step: null }, 'submit', now);
      await loaded.em.flush();
      this.announce(loaded, execution, [method], event, 'api_key');
      await this.finalizeLoaded(loaded, true);
    });
  }

  private async finalizeLoaded(loaded: Loaded, acknowledged: boolean): Promise<void> {
    const { em, record, participant } = loaded;
    const { execution } = await this.currentExecution(loaded, false);
    const methods = await methodsOf(loaded, execution);
    if (execution.status === 'finalized') throw new DomainError('conflict', 'This signature is already finalized');
    if (!canFinalize(execution, methods)) {
      throw new DomainError(
        'signature_incomplete',
        `Satisfy ${execution.requiredMethodCount} distinct signature methods before finalizing (${satisfiedCount(methods)} so far)`,
      );
    }
    if (record.onChainIncludeVerifiedParties && !acknowledged) {
      throw new DomainError(
        'acknowledgement_required',
        'This record publishes verified party details on chain: finalize with acknowledge_public_verified_parties = true',
      );
    }
    const now = this.deps.clock.now();
    const evidence = methods
      .filter((m) => m.status === 'satisfied')
      .sort((a, b) => a.methodType.localeCompare(b.methodType))
      .map((m) => ({ methodType: m.methodType, satisfiedAt: (m.satisfiedAt ?? now).toISOString(), evidenceHash: m.evidenceHash ?? '' }));
    const digest = sha256Hex([record.id, record.bodyHash, String(execution.recordVersion), participant.id, ...evidence.map((e) => `${e.methodType}:${e.evidenceHash}`)]);
    execution.status = 'finalized';
    execution.finalizedAt = now;
    execution.updatedAt = now;
    execution.evidence = evidence;
    execution.identicon = identiconFromDigest('signature', digest, `Signature of ${participant.displayName ?? participant.role} on ${record.reference} v${execution.recordVersion}`);
    participant.confirmedAt = now;
    participant.confirmedVersion = execution.recordVersion;
    // Announced with the record's status as the signature found it (the move it causes follows).
    this.announce(loaded, execution, methods, 'finalized', null);
    // The last required signature moves a pending record on (the seal itself is sealing's job).
    loaded.lifecycle.push(...(await completeIfAllSigned(em, record, now, participant.id)));
    // Otherwise, in sequential order, the turn passes on: the next signer's invitation commits with this signature.
    await this.deps.invitations.inviteDue(em, record, now);
    await em.flush();
  }

  /**
   * Completes a pending method from an outside signal that carries no principal (e.g. a messenger
   * platform update matched to its challenge). Returns false when the method is no longer pending
   * or its execution is no longer the current one.
   */
  async completeFromOutside(methodId: string, outcome: MethodOutcome): Promise<boolean> {
    const announced: SignatureProgressEvent[] = [];
    const done = await this.deps.orm.em.fork().transactional(async (em) => {
      // Every change to a record's executions and methods holds the record's lock, as the steps do
      // (they read them with the record, right after the lock is granted): the record first, then the method.
      const [owner] = await preparedQuery<{ recordId: string }>(
        em,
        'select e.record_id as "recordId" from signature_methods m join signature_executions e on e.id = m.execution_id where m.id = ?',
        [methodId],
      );
      if (!owner) return false;
      await lockRecordRow(em, owner.recordId);
      const method = await em.findOne(SignatureMethod, { id: methodId });
      if (!method || method.status !== 'pending') return false;
      const execution = await em.findOneOrFail(SignatureExecution, { id: method.execution.id }, { populate: ['record', 'participant'] });
      if (execution.status !== 'in_progress' || execution.recordVersion !== execution.record.currentVersion) return false;
      const event = applyOutcome(method, outcome, 'submit', this.deps.clock.now());
      await em.flush();
      const methods = await methodsOf({ em, read: {} }, execution);
      this.announce({ announced }, execution, methods, event, method.methodType);
      await this.deps.events.write(em, announced.map(signatureProgress));
      return true;
    });
    this.deps.events.committed();
    return done;
  }

  // ---- internals -------------------------------------------------------------------------------

  private adapter(type: string): SignatureMethodAdapter {
    const adapter = this.adapters.get(type as SignatureMethodType);
    if (!adapter) {
      const known = (SIGNATURE_METHOD_TYPES as readonly string[]).includes(type);
      throw DomainError.invalid(['methodType'], known ? `The ${type} method is not available on this service yet` : `Unknown signature method '${type}'`, known ? 'method_not_available' : 'invalid_enum');
    }
    return adapter;
  }

  private async step(
    principal: Principal | null,
    idOrReference: string,
    adapter: SignatureMethodAdapter,
    action: StepPreview['action'],
    input: Record<string, unknown>,
    run: (context: MethodContext, method: SignatureMethod) => Promise<MethodOutcome | null>,
    recordVersion?: number,
  ): Promise<ExecutionView> {
    const viewer = await this.countBefore(principal, idOrReference, adapter, action, input);
    return this.mutate(principal, idOrReference, { operation: STEP_OPERATIONS[action], viewer }, async (loaded) => {
      const { em } = loaded;
      if (recordVersion !== undefined && loaded.record.currentVersion !== recordVersion) {
        throw new DomainError('conflict', `This was given for version ${recordVersion}; the record is at version ${loaded.record.currentVersion} now`);
      }
      if (action === 'start' && adapter.appliesTo?.(loaded) === false) {
        throw DomainError.invalid(['methodType'], `The ${adapter.type} method cannot serve this signer`, 'method_not_applicable');
      }
      const { execution, created } = await this.currentExecution(loaded, action === 'start');
      if (execution.status !== 'in_progress') throw new DomainError('conflict', 'This signature is already finalized');
      // The execution's methods, read once under the record's lock: the answer shows them after this step.
      const methods = created ? [] : await methodsOf(loaded, execution);
      // A method started without its execution started first starts it: the trail and subscribers hear that first, as from startOrResume.
      if (created) this.announce(loaded, execution, methods, 'execution_started', null);
      let method = methods.find((candidate) => candidate.methodType === adapter.type);
      if (!method) {
        if (action !== 'start') throw new DomainError('conflict', `Start the ${adapter.type} method first`);
        method = em.create(SignatureMethod, { execution, methodType: adapter.type, status: 'pending' });
        methods.push(method);
      }
      const now = this.deps.clock.now();
      const outcome = await run({ em, record: loaded.record, participant: loaded.participant, execution, method, principal: loaded.principal, now }, method);
      const event = outcome ? applyOutcome(method, outcome, action, now) : 'method_pending';
      // Written by the journal's flush, with the step's audit entry and outbox event (one flush a step).
      this.announce(loaded, execution, methods, event, adapter.type);
      return toExecutionView(execution, methods, this.methodsFor(loaded));
    });
  }

  /**
   * What must stay counted even when the step fails (starts, code attempts, provider fetches) is
   * counted first, outside any transaction: a transaction never waits for a second pooled connection.
   */
  private async countBefore(principal: Principal | null, idOrReference: string, adapter: SignatureMethodAdapter, action: StepPreview['action'], input: Record<string, unknown>): Promise<Viewer | undefined> {
    if (action === 'cancel') return undefined;
    const caller = requireAccess(principal, STEP_OPERATIONS[action]);
    const em = this.deps.orm.em.fork();
    // The same checks as the step's own (404, then 403), on one statement's plain rows.
    const snapshot = await signerSnapshot(em, idOrReference, readerOf(caller), adapter.type);
    if (!snapshot || !canRead(snapshot.record, snapshot.viewer)) throw DomainError.notFound('Record');
    const participant = signerOf(snapshot.record.initiatorIdentity, snapshot.record.participants, snapshot.viewer);
    // A start is counted here, by the service; the adapter counts what its submits and refreshes spend.
    if (action === 'start') await this.deps.rateLimiter.hit(em, `method-start:${participant.id}:${adapter.type}`, this.deps.startLimit, `${adapter.type} starts`);
    else await adapter.count?.({ em, participant, method: snapshot.methods[participant.id] ?? null, action, input, now: this.deps.clock.now() });
    return snapshot.viewer;
  }

  /**
   * Runs one change in a transaction; its events go out only after the commit.
   * `only`: answer not_found for records of another type (the /notarizations routes). `viewer`: the
   * caller's contact points when this request has already read them. `within`: the change is part of
   * a shared transaction, which delivers the events after its own commit.
   */
  private async mutate<T>(
    principal: Principal | null,
    idOrReference: string,
    options: { operation: ScopedOperation; only?: RecordType | undefined; viewer?: Viewer | undefined; within?: SharedTransaction | undefined },
    work: (loaded: Loaded) => Promise<T>,
  ): Promise<T> {
    const announced: SignatureProgressEvent[] = [];
    const moves: RecordLifecycleEvent[] = [];
    const change = async (em: EntityManager) => {
      const done = await work({ ...(await this.load(em, principal, idOrReference, { ...options, forRead: false })), announced, lifecycle: moves });
      // The ceremony steps first: a record that seals commits to the signature that sealed it.
      await this.deps.events.write(em, [...announced.map(signatureProgress), ...moves.map(lifecycle)]);
      return done;
    };
    if (options.within) return change(options.within.em);
    const result = await this.deps.orm.em.fork().transactional(change);
    this.deps.events.committed();
    return result;
  }

  /** The record, and the participant the caller signs as; refuses when signing is closed for them. */
  private async load(
    em: EntityManager,
    principal: Principal | null,
    idOrReference: string,
    options: { operation: ScopedOperation; forRead: boolean; only?: RecordType | undefined; viewer?: Viewer | undefined },
  ): Promise<Loaded> {
    const caller = requireAccess(principal, options.operation);
    // Changes to one record's signatures run one at a time: the last finalize sees every other.
    const lock = !options.forRead;
    // Locked, the executions and methods of the current version come with the participants.
    const { record, viewer, signatures } = options.viewer
      ? { ...(await findReadableRecordFor(em, idOrReference, options.viewer, { lock, signatures: lock })), viewer: options.viewer }
      : await findRecordAsReader(em, idOrReference, readerOf(caller), { lock, signatures: lock });
    if (options.only && record.type !== options.only) throw DomainError.notFound('Record');
    const participant = signerOf(record.initiatorIdentity, record.participants.getItems(), viewer);
    if (!options.forRead) {
      // The lifecycle table's signing window decides.
      const closed = signingClosed(record.status, participant.role) ?? turnClosed(record.signingOrder, record.participants.getItems(), participant.id, record.currentVersion);
      if (closed) throw new DomainError('invalid_transition', closed);
    }
    return { em, record, participant, principal: caller, viewer, announced: [], lifecycle: [], read: { executions: signatures?.executions, allMethods: signatures?.methods } };
  }

  /**
   * The execution for the record's current version. Executions of older versions are superseded
   * the moment the version changes: their work never counts for the new text. In a change, the
   * record's lock is what keeps it current (every change to executions and methods holds it): it is
   * the one read with the locked record, or read again after an earlier part of the change used that.
   */
  private async currentExecution({ em, record, participant, read }: Loaded, create: boolean): Promise<{ execution: SignatureExecution; created: boolean }> {
    const known = read.executions;
    const knownMethods = read.allMethods ?? [];
    read.executions = undefined;
    read.allMethods = undefined;
    const rows = known
      ? known.filter((row) => row.participant_id === participant.id)
      : await preparedQuery<{ id: string }>(
          em,
          'select * from signature_executions where participant_id = ? and record_version = ? limit 1',
          [participant.id, record.currentVersion],
        );
    let execution = managed(em, SignatureExecution, rows as { id: string }[])[0];
    if (execution) {
      if (known) read.methods = { executionId: execution.id, rows: knownMethods.filter((row) => row.execution_id === execution!.id) };
      return { execution, created: false };
    }
    if (!create) throw DomainError.notFound('Signature execution');
    const now = this.deps.clock.now();
    // Executions of earlier versions are superseded (a record's first version has none).
    if (record.currentVersion > 1) {
      await em.nativeUpdate(SignatureExecution, { participant, status: 'in_progress', recordVersion: { $ne: record.currentVersion } }, { status: 'superseded', updatedAt: now });
    }
    execution = em.create(SignatureExecution, {
      record,
      participant,
      recordVersion: record.currentVersion,
      requiredMethodCount: record.requiredSignatureMethodCount,
      createdAt: now,
      updatedAt: now,
    });
    await em.flush();
    return { execution, created: true };
  }

  private announce(
    loaded: Pick<Loaded, 'announced'>,
    execution: SignatureExecution,
    methods: SignatureMethod[],
    event: SignatureProgressEvent['event'],
    methodType: string | null,
  ): void {
    loaded.announced.push({
      recordId: execution.record.id,
      executionId: execution.id,
      participantId: execution.participant.id,
      event,
      methodType,
      executionStatus: execution.status,
      recordVersion: execution.recordVersion,
      satisfiedMethodCount: satisfiedCount(methods),
      requiredSignatureMethodCount: execution.requiredMethodCount,
      canFinalize: canFinalize(execution, methods),
      recordStatus: execution.record.status,
      at: this.deps.clock.now().toISOString(),
    });
  }
}

/**
 * The participant the caller signs as: the initiator's own row when the caller initiated the record,
 * else an active row of another role that is the caller (linked identity or verified contact point).
 */
function signerOf<P extends SignerRow>(initiatorIdentity: string, participants: readonly P[], viewer: Viewer): P {
  const active = participants.filter((p) => !p.removedAt && !p.declinedAt && !p.waivedAt);
  const participant =
    (initiatorIdentity === viewer.identityId ? active.find((p) => p.role === 'initiator') : undefined) ??
    active.find((p) => p.role !== 'initiator' && isViewerParticipant(p, viewer));
  if (!participant) throw new DomainError('forbidden', 'You are not a signing participant of this record');
  return participant;
}

/**
 * Rows of a fixed statement as managed entities (the ORM builds no query on a step's hot path); an
 * entity the EntityManager already holds is kept as it is, with its changes.
 */
function managed<T extends object>(em: EntityManager, entity: EntityClass<T>, rows: readonly { id: string }[]): T[] {
  const unitOfWork = em.getUnitOfWork();
  return rows.map((row) => unitOfWork.getById(entity, row.id as Primary<T>) ?? em.map(entity, row as unknown as EntityDictionary<T>));
}

/** An execution's methods: those read with the locked record when not used yet, else read now. */
async function methodsOf({ em, read }: Pick<Loaded, 'em' | 'read'>, execution: SignatureExecution): Promise<SignatureMethod[]> {
  const known = read.methods?.executionId === execution.id ? read.methods.rows : undefined;
  read.methods = undefined;
  const rows = known ?? (await preparedQuery<{ id: string }>(em, 'select * from signature_methods where execution_id = ?', [execution.id]));
  return managed(em, SignatureMethod, rows as { id: string }[]);
}

/**
 * Applies an adapter's outcome to the method row; returns the progress event it amounts to. The
 * execution's row is not touched: its `updated_at` is its own (started, finalized, superseded), the
 * method's row has its own (one UPDATE a step fewer).
 */
function applyOutcome(
  method: SignatureMethod,
  outcome: MethodOutcome,
  action: 'start' | 'submit' | 'refresh' | 'cancel',
  now: Date,
): SignatureProgressEvent['event'] {
  let event: SignatureProgressEvent['event'];
  if (outcome.state) method.state = { ...method.state, ...outcome.state };
  if (outcome.status === 'pending') {
    method.status = 'pending';
    method.step = outcome.step;
    method.failureReason = null;
    event = action === 'start' ? 'method_started' : 'method_pending';
  } else if (outcome.status === 'satisfied') {
    method.status = 'satisfied';
    method.step = outcome.step ?? null;
    method.satisfiedAt = now;
    method.evidenceHash = `sha256:${sha256Hex([outcome.evidence])}`;
    event = 'method_satisfied';
  } else {
    method.status = outcome.reason === 'cancelled' ? 'cancelled' : 'failed';
    method.failureReason = outcome.reason;
    method.step = null;
    event = method.status === 'cancelled' ? 'method_cancelled' : 'method_failed';
  }
  method.updatedAt = now;
  return event;
}
