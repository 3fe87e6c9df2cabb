import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager, EventSubscriber, FlushEventArgs, TransactionEventArgs, UnitOfWork } from '@mikro-orm/postgresql';

type OpenClaim = { id: string | null; marked: boolean };

const current = new AsyncLocalStorage<OpenClaim>();

/** Marks a running claim committed, with the record its change wrote (parameters: record id, claim id). */
const MARK_COMMITTED = `update idempotency_keys set status = 'committed', committed_record_id = ?, locked_until = null where id = ? and status = 'running'`;

/** Runs a request's work under its Idempotency-Key claim: the first change it journals marks the claim committed. */
export function withinClaim<T>(claimId: string, work: () => Promise<T>): Promise<T> {
  return current.run({ id: claimId, marked: false }, work);
}

/**
 * Runs a request with a place for a claim made later, deeper in its handling (GraphQL: the claim is
 * made once the document is parsed, and the execution that follows is not a call the claimer makes).
 */
export function withClaimSlot<T>(work: () => T): T {
  return current.run({ id: null, marked: false }, work);
}

/** Puts a claim in the request's slot (withClaimSlot): its changes mark it from now on. */
export function assignClaim(claimId: string): void {
  const slot = current.getStore();
  if (slot) slot.id = claimId;
}

/**
 * Called by the journal in the transaction of every change (EventJournal.write): the request's claim,
 * if any, is marked `committed` with the record, in that same transaction. So a change and the mark
 * that it happened commit together or not at all, and a retry after a crash between the commit and
 * the stored answer replays instead of running the change a second time.
 */
export async function markClaimCommitted(em: EntityManager, recordId: string): Promise<void> {
  const claim = current.getStore();
  if (!claim?.id || claim.marked) return;
  claim.marked = true;
  await em.execute(MARK_COMMITTED, [recordId, claim.id]);
}

/** A flush's change sets: the record the change is about (null when it wrote no record's rows), or undefined when it wrote nothing. */
function recordOf(uow: UnitOfWork | undefined): string | null | undefined {
  const changes = uow?.getChangeSets() ?? [];
  if (changes.length === 0) return undefined;
  for (const change of changes) {
    const entity = change.entity as { id?: unknown; record?: { id?: unknown } | null };
    if (change.meta.tableName === 'records' && typeof entity.id === 'string') return entity.id;
    if (typeof entity.record?.id === 'string') return entity.record.id;
  }
  return null;
}

/**
 * The ORM's side of the mark: a request's claim is marked `committed` in the first transaction of the
 * request that writes entities, just before it commits (an explicit transaction remembers what its
 * flushes wrote until then). Changes that write only through the journal are marked there.
 */
export function claimCommitSubscriber(): EventSubscriber {
  const wrote = new WeakMap<object, string | null>();
  return {
    afterFlush(args: FlushEventArgs) {
      const claim = current.getStore();
      if (!claim?.id || claim.marked || !args.em.isInTransaction()) return;
      const record = recordOf(args.uow);
      const transaction = args.em.getTransactionContext<object>();
      if (record !== undefined && transaction && !(wrote.get(transaction) ?? null)) wrote.set(transaction, record);
    },
    async beforeTransactionCommit(args: TransactionEventArgs) {
      const claim = current.getStore();
      if (!claim?.id || claim.marked || !args.transaction || 'savepointName' in args.transaction) return;
      const transaction = args.transaction as object;
      const record = wrote.has(transaction) ? wrote.get(transaction)! : recordOf(args.uow);
      if (record === undefined) return;
      claim.marked = true;
      await args.em.getConnection().execute(MARK_COMMITTED, [record, claim.id], 'run', args.transaction);
    },
  };
}
