import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { canonicalBytes, sha256Tagged } from '../shared/canonical-json.js';
import { leftForDispatcher, OutboxEvent } from '../outbox/entities.js';
import type { RecordLifecycleEvent } from '../shared/events.js';

export type AuditActorRole = 'initiator' | 'party' | 'witness' | 'system';

/** What an audit entry may carry besides its move: product facts only, never a secret or a contact value. */
export type AuditDetails = {
  method_type?: string;
  to_status?: string;
  metadata_hash?: string;
  artifact?: string;
};

/**
 * One entry of a record's audit trail. Entries form a hash chain: each commits to the previous
 * entry's hash, and the seal commits to the head, so editing or deleting any row is detectable.
 */
@Entity({ tableName: 'record_audit_entries' })
@Unique({ properties: ['recordId', 'seq'] })
export class AuditEntry {
  [OptionalProps]?: 'id' | 'details' | 'prevHash';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** Indexed by the unique (record, seq) constraint. */
  @Property({ type: 'uuid' })
  recordId!: string;

  @Property({ type: 'integer' })
  seq!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  at!: Date;

  @Property({ type: 'text' })
  actorRole!: AuditActorRole;

  @Property({ type: 'text' })
  move!: string;

  @Property({ type: 'integer' })
  version!: number;

  @Property({ type: 'json' })
  details: AuditDetails = {};

  @Property({ type: 'text', nullable: true })
  prevHash: string | null = null;

  @Property({ type: 'text' })
  entryHash!: string;
}

/** The exported form of an entry (REST, GraphQL, the sealed PDF's audit-trail.json). */
export type AuditTrailEntry = {
  seq: number;
  at: string;
  actor_role: AuditActorRole;
  move: string;
  version: number;
  details: AuditDetails;
  prev_hash: string | null;
  entry_hash: string;
};

type Hashed = Omit<AuditTrailEntry, 'entry_hash'>;

/** The hash of an entry: RFC 8785 bytes of everything it says, bound to its record. */
export function auditEntryHash(recordId: string, entry: Hashed): string {
  return sha256Tagged(canonicalBytes({ record_id: recordId, ...entry }));
}

function toAuditTrailEntry(row: AuditEntry): AuditTrailEntry {
  return {
    seq: row.seq,
    at: row.at.toISOString(),
    actor_role: row.actorRole,
    move: row.move,
    version: row.version,
    details: row.details,
    prev_hash: row.prevHash,
    entry_hash: row.entryHash,
  };
}

export type ChainCheck = { valid: true; head: string | null; entries: number } | { valid: false; brokenAt: number; reason: string };

/** Recomputes a trail's chain from its first entry; any edited, inserted, removed or reordered entry breaks it. */
export function verifyAuditChain(recordId: string, entries: readonly AuditTrailEntry[]): ChainCheck {
  let prev: string | null = null;
  for (const [index, entry] of entries.entries()) {
    if (entry.seq !== index + 1) return { valid: false, brokenAt: index + 1, reason: `entry ${index + 1} has sequence number ${entry.seq}` };
    if (entry.prev_hash !== prev) return { valid: false, brokenAt: entry.seq, reason: `entry ${entry.seq} does not follow entry ${index}` };
    const { entry_hash: stored, ...hashed } = entry;
    if (auditEntryHash(recordId, hashed) !== stored) return { valid: false, brokenAt: entry.seq, reason: `entry ${entry.seq} was changed after it was written` };
    prev = stored;
  }
  return { valid: true, head: prev, entries: entries.length };
}

export type AuditMove = { at: Date; actorRole: AuditActorRole; move: string; version: number; details?: AuditDetails };

/** An entry as its row is written (`record_audit_entries`): the entity's fields, as plain data. */
export type AuditRow = Omit<AuditEntry, typeof OptionalProps>;

/**
 * The entries that follow a record's trail for these moves, chained to its head (read here; nothing
 * is written). The caller holds the record's row lock (the unique (record, seq) constraint refuses a
 * fork if it did not) and writes them (`EventJournal`) before the trail is read or extended again.
 */
export async function nextAuditEntries(em: EntityManager, recordId: string, moves: readonly AuditMove[]): Promise<AuditRow[]> {
  if (moves.length === 0) return [];
  // Fixed text, no entity: only the head's sequence number and hash are needed (or read with the lock).
  const known = takeAuditHead(em, recordId);
  const [last] =
    known !== undefined
      ? [known ?? undefined]
      : await em.execute<{ seq: number; entryHash: string }[]>('select seq, entry_hash as "entryHash" from record_audit_entries where record_id = ? order by seq desc limit 1', [recordId]);
  let seq = last?.seq ?? 0;
  let prev = last?.entryHash ?? null;
  const rows: AuditRow[] = [];
  for (const move of moves) {
    seq += 1;
    const details = move.details ?? {};
    const hashed: Hashed = { seq, at: move.at.toISOString(), actor_role: move.actorRole, move: move.move, version: move.version, details, prev_hash: prev };
    const entryHash = auditEntryHash(recordId, hashed);
    rows.push({ id: randomUUID(), recordId, seq, at: move.at, actorRole: move.actorRole, move: move.move, version: move.version, details, prevHash: prev, entryHash });
    prev = entryHash;
  }
  return rows;
}

/** A trail's last entry: its sequence number and hash. */
export type AuditHead = { seq: number; entryHash: string };

/** Heads read with a record's lock, per transaction (its EntityManager), each for one use. */
const headsReadWithLock = new WeakMap<EntityManager, Map<string, AuditHead | null>>();

/**
 * The head of a record's trail as the statement that ran right after the record's lock was granted
 * read it (null: no entry). The next `nextAuditEntries` of that record in the transaction uses it
 * instead of reading it again; it is used once, so whatever that call's entries become (written, or
 * rolled back with a savepoint), later calls read the trail again.
 */
export function rememberAuditHead(em: EntityManager, recordId: string, head: AuditHead | null): void {
  let heads = headsReadWithLock.get(em);
  if (!heads) headsReadWithLock.set(em, (heads = new Map<string, AuditHead | null>()));
  heads.set(recordId, head);
}

function takeAuditHead(em: EntityManager, recordId: string): AuditHead | null | undefined {
  const heads = headsReadWithLock.get(em);
  const head = heads?.get(recordId);
  heads?.delete(recordId);
  return head;
}

export async function auditTrail(em: EntityManager, recordId: string): Promise<AuditTrailEntry[]> {
  const rows = await em.find(AuditEntry, { recordId }, { orderBy: { seq: 'asc' } });
  return rows.map(toAuditTrailEntry);
}

/**
 * The first entry of a new record's trail, and its creation's outbox event (integrators' `record.created`),
 * persisted with the record in the caller's flush; the dispatcher is woken when that commits. Until it
 * has delivered it, the record's later events wait behind it (the journal's `held`): every subscriber,
 * webhooks and GraphQL alike, hears of a record's creation first.
 */
export function openAuditTrail(em: EntityManager, recordId: string, at: Date, move: 'create' | 'amendment_created' | 'cancellation_created'): void {
  const hashed: Hashed = { seq: 1, at: at.toISOString(), actor_role: 'initiator', move, version: 1, details: { to_status: 'draft' }, prev_hash: null };
  em.create(AuditEntry, { recordId, seq: 1, at, actorRole: 'initiator', move, version: 1, details: hashed.details, prevHash: null, entryHash: auditEntryHash(recordId, hashed) });
  const created: RecordLifecycleEvent = { recordId, trigger: move, fromStatus: 'draft', toStatus: 'draft', participantId: null, recordVersion: 1, at: at.toISOString() };
  em.create(OutboxEvent, { type: 'record_lifecycle', payload: created, recordId, createdAt: at });
  leftForDispatcher.add(em);
}
