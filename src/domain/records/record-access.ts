import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { cleanUnicode } from '../shared/unicode.js';
import { preparedQuery } from '../shared/sql.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { rememberAuditHead, type AuditHead } from './audit-trail.js';
import { Participant, SignedRecord } from './entities.js';
import type { MethodStatus } from '../ceremonies/entities.js';
import { looksLikeReference } from './reference.js';
import { contactKey, isViewerParticipant, type ParticipantData, type RecordData, type Viewer } from './record-view.js';
import type { TeamRole } from '../vocabulary.js';
import { MEMBERSHIP_IN_SCOPE, membershipParams, TEAMS_OF_READER, type Reader } from '../teams/team-access.js';

/** The caller as a viewer: its identity, verified contact points and teams (one prepared statement, no entities). */
export async function viewerFor(em: EntityManager, reader: Reader): Promise<Viewer> {
  const [row] = await preparedQuery<{ points: { type: string; value: string }[]; teams: Record<string, TeamRole> }>(
    em,
    `select ${CONTACT_POINTS_OF} as points, ${TEAMS_OF_READER} as teams`,
    [reader.identityId, ...membershipParams(reader)],
  );
  return viewerOf(reader, row?.points ?? [], row?.teams ?? {});
}

/** A viewer from what a statement read of it. */
export function viewerOf(reader: Reader, points: readonly { type: string; value: string }[], teams: Record<string, TeamRole>): Viewer {
  return { ...reader, contactKeys: new Set(points.map((p) => contactKey(p.type, p.value))), teams: new Map(Object.entries(teams)) };
}

/** An id or AGR reference as a lookup key; null for anything that is neither. */
export function recordKeyOf(idOrReference: string): { id: string } | { reference: string } | null {
  // A pasted reference often carries invisible characters: they are not part of it.
  const key = cleanUnicode(idOrReference ?? '').trim();
  if (isUuid(key)) return { id: key.toLowerCase() };
  if (looksLikeReference(key)) return { reference: key.toUpperCase() };
  return null;
}

/**
 * Who may read a record, in SQL (the same rule as `canRead`): a personal record's initiator, a team
 * record's team (the memberships the credential acts for), or an active participant that is the
 * identity or one of its verified contact points (on a team's record, not as its initiator: the
 * initiator reads it as a member, and a member who left no longer does). Six `?`: `readableByParams`.
 */
const READABLE_BY = `(case when r.team_id is null then r.initiator_identity_id = ?
      else exists (select 1 from team_members m where m.team_id = r.team_id and ${MEMBERSHIP_IN_SCOPE}) end
    or exists (
    select 1 from participants p where p.record_id = r.id and p.removed_at is null and (r.team_id is null or p.role <> 'initiator') and (p.identity_id = ? or exists (
      select 1 from contact_points c where c.identity_id = ? and c.type = p.contact_point_type and c.value = p.contact_point_value))))`;

const readableByParams = (reader: Reader): unknown[] => [reader.identityId, ...membershipParams(reader), reader.identityId, reader.identityId];

/**
 * Loads a record by id or AGR reference, with its participants. `lock`: the row is locked for the
 * transaction and read after the lock is granted (a change that committed first is visible).
 * `readableBy`: an identity; a record it may not read is not found, and (locked) its row is never
 * locked, so that nobody outside a record can hold up the changes of the people in it.
 * Two statements of fixed text, mapped to managed entities: the ORM builds no query (a ceremony step
 * and every locked change start here).
 */
export async function findRecord(em: EntityManager, idOrReference: string, options: { lock?: boolean; readableBy?: Reader } = {}): Promise<SignedRecord | null> {
  return (await loadRecord(em, idOrReference, options))?.record ?? null;
}

/** The identity's verified contact points as a JSON array, in a select list. One `?`: the identity. */
const CONTACT_POINTS_OF = `coalesce((select json_agg(json_build_object('type', c.type, 'value', c.value)) from contact_points c where c.identity_id = ?), '[]')`;

/**
 * What a signature step reads with the locked record's participants, in the same statement: the
 * current version's executions and their methods (rows, for `em.map`). Every change to a record's
 * executions and methods holds the record's row lock, so rows read after it is granted are current.
 */
export type SignatureRows = { executions: Record<string, unknown>[]; methods: Record<string, unknown>[] };

/**
 * The second statement of a locked load for a signature step: the participants (locked), the current
 * version's executions and methods, and the head of the audit trail (for the change's journal). It
 * runs after the record's lock is granted, so its snapshot sees every change committed before.
 */
const PARTICIPANTS_AND_SIGNATURES = `select
    (select coalesce(json_agg(p order by p.position), '[]') from (select * from participants where record_id = ? for update) p) as participants,
    (select coalesce(json_agg(e), '[]') from signature_executions e where e.record_id = ? and e.record_version = ?) as executions,
    (select coalesce(json_agg(m), '[]') from signature_methods m join signature_executions e on e.id = m.execution_id
      where e.record_id = ? and e.record_version = ?) as methods,
    (select json_build_object('seq', a.seq, 'entryHash', a.entry_hash) from record_audit_entries a where a.record_id = ? order by a.seq desc limit 1) as "auditHead"`;

async function loadRecord(
  em: EntityManager,
  idOrReference: string,
  options: { lock?: boolean; readableBy?: Reader; viewerOf?: Reader; signatures?: boolean },
): Promise<{ record: SignedRecord; contactPoints: { type: string; value: string }[]; teams: Record<string, TeamRole>; signatures?: SignatureRows } | null> {
  const key = recordKeyOf(idOrReference);
  if (!key) return null;
  const lock = options.lock ? ' for update' : '';
  const reader = options.readableBy;
  const viewer = options.viewerOf;
  const [found] = await preparedQuery<{ id: string; current_version: number; readerContactPoints?: { type: string; value: string }[]; readerTeams?: Record<string, TeamRole> }>(
    em,
    `select r.*${viewer === undefined ? '' : `, ${CONTACT_POINTS_OF} as "readerContactPoints", ${TEAMS_OF_READER} as "readerTeams"`} from records r
      where r.${'id' in key ? 'id' : 'reference'} = ?${reader === undefined ? '' : ` and ${READABLE_BY}`}${lock && `${lock} of r`}`,
    [
      ...(viewer === undefined ? [] : [viewer.identityId, ...membershipParams(viewer)]),
      'id' in key ? key.id : key.reference,
      ...(reader === undefined ? [] : readableByParams(reader)),
    ],
  );
  if (!found) return null;
  const { readerContactPoints: contactPoints = [], readerTeams: teams = {}, ...row } = found;
  // Unlocked, a record this EntityManager already manages is returned as it holds it (with its changes).
  const managed = lock ? null : em.getUnitOfWork().getById(SignedRecord, row.id);
  if (managed) {
    await em.populate(managed, ['participants']);
    return { record: managed, contactPoints, teams };
  }
  if (options.lock && options.signatures) {
    const version = row.current_version;
    const [rows] = await preparedQuery<SignatureRows & { participants: object[]; auditHead: AuditHead | null }>(em, PARTICIPANTS_AND_SIGNATURES, [row.id, row.id, version, row.id, version, row.id]);
    const { participants, auditHead, ...signatures } = rows!;
    const record = em.map(SignedRecord, row);
    record.participants.hydrate(participants.map((participant) => em.map(Participant, participant)));
    heldRowLocks(em).add(record.id);
    rememberAuditHead(em, record.id, auditHead);
    return { record, contactPoints, teams, signatures };
  }
  const participants = await preparedQuery<object>(em, `select * from participants where record_id = ? order by position${lock}`, [row.id]);
  const record = em.map(SignedRecord, row);
  record.participants.hydrate(participants.map((participant) => em.map(Participant, participant)));
  if (options.lock) heldRowLocks(em).add(record.id);
  return { record, contactPoints, teams };
}

/** A participant row as a signature step picks the signer (see `signerOf`). */
export type SignerRow = Pick<ParticipantData, 'id' | 'role' | 'identity' | 'contactPointType' | 'contactPointValue' | 'removedAt' | 'declinedAt' | 'waivedAt'>;

/** A record as a signature step sees it before its transaction (plain data, not entities). */
export type SignerSnapshot = {
  record: ReadableData & { id: string; currentVersion: number; participants: readonly SignerRow[] };
  viewer: Viewer;
  /** Per participant id: the method of the asked type on its execution for the current version. */
  methods: Readonly<Record<string, { status: MethodStatus; state: Record<string, unknown> }>>;
};

/** `signerSnapshot`'s statement, by record id or reference. Six `?`: the identity, then `membershipParams` (three), the method type, the key. */
export function signerSnapshotSql(by: 'id' | 'reference'): string {
  return `select r.id, r.current_version as "currentVersion", r.initiator_identity_id as "initiatorIdentity", r.team_id as "teamId",
       coalesce((select json_agg(json_build_object('type', c.type, 'value', c.value)) from contact_points c where c.identity_id = ?), '[]') as "contactPoints",
       ${TEAMS_OF_READER} as teams,
       coalesce((select json_agg(json_build_object('id', p.id, 'role', p.role, 'identity', p.identity_id, 'contactPointType', p.contact_point_type,
           'contactPointValue', p.contact_point_value, 'removedAt', p.removed_at, 'declinedAt', p.declined_at, 'waivedAt', p.waived_at) order by p.position)
         from participants p where p.record_id = r.id), '[]') as participants,
       (select json_object_agg(p.id, json_build_object('status', m.status, 'state', m.state))
         from participants p join signature_executions e on e.participant_id = p.id and e.record_version = r.current_version
         join signature_methods m on m.execution_id = e.id and m.method_type = ? where p.record_id = r.id) as methods
     from records r where r.${by} = ?`;
}

/**
 * What a signature step checks and counts before its transaction, in one statement of fixed text
 * and with no entities: the record's id, version, initiator and participants, the identity's verified
 * contact points, and each participant's method of `methodType` on the current version. Null when
 * there is no such record; whether the identity may read it is the caller's to check (`canRead`).
 * The step's transaction reads all of it again under the record's lock.
 */
export async function signerSnapshot(em: EntityManager, idOrReference: string, reader: Reader, methodType: string): Promise<SignerSnapshot | null> {
  const key = recordKeyOf(idOrReference);
  if (!key) return null;
  const [row] = await preparedQuery<{
    id: string;
    currentVersion: number;
    initiatorIdentity: string;
    teamId: string | null;
    contactPoints: { type: string; value: string }[];
    teams: Record<string, TeamRole>;
    participants: SignerRow[];
    methods: SignerSnapshot['methods'] | null;
  }>(em, signerSnapshotSql('id' in key ? 'id' : 'reference'), [reader.identityId, ...membershipParams(reader), methodType, 'id' in key ? key.id : key.reference]);
  if (!row) return null;
  const { contactPoints, teams, methods, ...record } = row;
  return { record, viewer: viewerOf(reader, contactPoints, teams), methods: methods ?? {} };
}

/**
 * The record rows an EntityManager's transaction has locked. `transactional` gives each transaction
 * a fork of its own, so what is held is forgotten with the fork.
 */
const rowLocks = new WeakMap<EntityManager, Set<string>>();

function heldRowLocks(em: EntityManager): Set<string> {
  let held = rowLocks.get(em);
  if (!held) rowLocks.set(em, (held = new Set()));
  return held;
}

/** Locks a record's row for the transaction of `em`; sends nothing when that transaction holds it already. */
export async function lockRecordRow(em: EntityManager, recordId: string): Promise<void> {
  const held = heldRowLocks(em);
  if (held.has(recordId)) return;
  await em.findOne(SignedRecord, { id: recordId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  held.add(recordId);
}

/** What the read rule looks at: the initiator, the team and each participant row's link to a reader. */
export type ReadableData = Pick<RecordData, 'initiatorIdentity' | 'teamId'> & {
  participants: readonly Pick<ParticipantData, 'role' | 'removedAt' | 'identity' | 'contactPointType' | 'contactPointValue'>[];
};

/** The read rule (READABLE_BY in SQL): see there. */
export function canRead(record: SignedRecord | ReadableData, viewer: Viewer): boolean {
  // A removed participant (e.g. a replaced witness) no longer reads the record, as in the listing.
  const participants: ReadableData['participants'] = Array.isArray(record.participants) ? record.participants : (record as SignedRecord).participants.getItems();
  const team = record.teamId;
  return (
    (team === null ? record.initiatorIdentity === viewer.identityId : viewer.teams.has(team)) ||
    participants.some((p) => p.removedAt === null && (team === null || p.role !== 'initiator') && isViewerParticipant(p, viewer))
  );
}

/**
 * A record the reader may read. A record outside the viewer's identity graph answers exactly like a
 * missing one (not_found), so that references cannot be probed for existence. For an identity whose
 * reader view is not read yet: its verified contact points come with the record, in the statement
 * that finds (and locks) it, one statement fewer.
 */
export async function findRecordAsReader(
  em: EntityManager,
  idOrReference: string,
  reader: Reader,
  options: { lock?: boolean; signatures?: boolean } = {},
): Promise<{ record: SignedRecord; viewer: Viewer; signatures?: SignatureRows | undefined }> {
  const found = await loadRecord(em, idOrReference, { lock: options.lock, readableBy: options.lock ? reader : undefined, viewerOf: reader, signatures: options.signatures });
  const viewer = viewerOf(reader, found?.contactPoints ?? [], found?.teams ?? {});
  if (!found || !canRead(found.record, viewer)) throw DomainError.notFound('Record');
  return { record: found.record, viewer, signatures: found.signatures };
}

/**
 * A record the viewer may read (not_found otherwise, as findRecordAsReader), and locked with
 * `signatures`, the current version's executions and methods read with the participants (`SignatureRows`).
 */
export async function findReadableRecordFor(
  em: EntityManager,
  idOrReference: string,
  viewer: Viewer,
  options: { lock?: boolean; signatures?: boolean } = {},
): Promise<{ record: SignedRecord; signatures?: SignatureRows | undefined }> {
  // Locked, the read rule is part of the locking statement: an outsider's request takes no lock.
  const found = await loadRecord(em, idOrReference, options.lock ? { lock: true, readableBy: viewer, signatures: options.signatures } : {});
  if (!found || !canRead(found.record, viewer)) throw DomainError.notFound('Record');
  return { record: found.record, signatures: found.signatures };
}

/**
 * Ids of the records a listing shows, newest first, with the total (one statement; a second counts
 * only when the page is past the end). Without a team: the identity's own records and those it is a
 * participant in, joined in SQL (initiator identity, linked participant identity or a participant
 * contact point that is one of the identity's verified contact points). With a team: the team's
 * records (the caller's role in it is checked before).
 */
export async function readableRecordIds(
  em: EntityManager,
  identityId: string,
  filter: RecordListFilter,
): Promise<{ ids: string[]; total: number }> {
  const { count, page } = filter.team ? teamRecordsQuery(filter.team, filter) : readableRecordsQuery(identityId, filter);
  const rows = await preparedQuery<{ id: string; total: string }>(em, page.sql, page.params);
  if (rows.length > 0) return { ids: rows.map((row) => row.id), total: Number(rows[0]!.total) };
  const [counted] = filter.offset > 0 ? await preparedQuery<{ total: string }>(em, count.sql, count.params) : [];
  return { ids: [], total: Number(counted?.total ?? 0) };
}

export type RecordListFilter = { status?: string | null; type?: string | null; team?: string | null; limit: number; offset: number };

type ListQuery = Record<'count' | 'page', { sql: string; params: unknown[] }>;

/**
 * The identity's records as a union of three indexed lookups (initiated; participant by identity;
 * participant by one of its verified contact points), joined to records by primary key: no scan of
 * `records` or `participants`, however many rows they hold. A team's records are the team's listing:
 * here only those the identity takes part in other than as their initiator.
 */
export function readableRecordsQuery(identityId: string, filter: RecordListFilter): ListQuery {
  return listQuery(PERSONAL_RECORD_IDS, [identityId, identityId, identityId], filter);
}

/**
 * The ids of an identity's own records (`readableRecordsQuery`): initiated personal records, and those
 * it takes part in (other than as a team record's initiator). Three `?`: the identity, thrice.
 */
export const PERSONAL_RECORD_IDS = `select id from records where initiator_identity_id = ? and team_id is null
       union
       select p.record_id from participants p join records x on x.id = p.record_id
        where p.identity_id = ? and p.removed_at is null and (x.team_id is null or p.role <> 'initiator')
       union
       select p.record_id from contact_points c
         join participants p on p.contact_point_type = c.type and p.contact_point_value = c.value
         join records x on x.id = p.record_id
        where c.identity_id = ? and p.removed_at is null and (x.team_id is null or p.role <> 'initiator')`;

/** A team's records (an index on team and creation time). */
export function teamRecordsQuery(teamId: string, filter: RecordListFilter): ListQuery {
  return listQuery('select id from records where team_id = ?', [teamId], filter);
}

function listQuery(readableIds: string, readableParams: unknown[], filter: RecordListFilter): ListQuery {
  const params: unknown[] = [...readableParams];
  let from = `records r join (${readableIds}) readable on readable.id = r.id where true`;
  if (filter.status) {
    from += ' and r.status = ?';
    params.push(filter.status);
  }
  if (filter.type) {
    from += ' and r.type = ?';
    params.push(filter.type);
  }
  return {
    count: { sql: `select count(*) as total from ${from}`, params },
    page: {
      sql: `select r.id, count(*) over () as total from ${from} order by r.created_at desc, r.id desc limit ? offset ?`,
      params: [...params, filter.limit, filter.offset],
    },
  };
}
