import type { EntityManager } from '@mikro-orm/postgresql';
import { contactPointsOf } from '../identity/identity-service.js';
import { DomainError } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { SignedRecord } from './entities.js';
import { looksLikeReference } from './reference.js';
import { contactKey, isViewerParticipant, type Viewer } from './record-view.js';

export async function viewerFor(em: EntityManager, identityId: string): Promise<Viewer> {
  const points = await contactPointsOf(em, identityId);
  return { identityId, contactKeys: new Set(points.map((p) => contactKey(p.type, p.value))) };
}

/** Loads a record by id or AGR reference, with its participants. */
export async function findRecord(em: EntityManager, idOrReference: string): Promise<SignedRecord | null> {
  const key = (idOrReference ?? '').trim();
  if (isUuid(key)) return em.findOne(SignedRecord, { id: key.toLowerCase() }, { populate: ['participants'] });
  if (looksLikeReference(key)) return em.findOne(SignedRecord, { reference: key.toUpperCase() }, { populate: ['participants'] });
  return null;
}

export function canRead(record: SignedRecord, viewer: Viewer): boolean {
  // A removed participant (e.g. a replaced witness) no longer reads the record, as in the listing.
  return (
    record.initiatorIdentity === viewer.identityId ||
    record.participants.getItems().some((p) => p.removedAt === null && isViewerParticipant(p, viewer))
  );
}

/**
 * A record the viewer may read. A record outside the viewer's identity graph answers exactly like a
 * missing one (not_found), so that references cannot be probed for existence.
 */
export async function findReadableRecord(em: EntityManager, idOrReference: string, viewer: Viewer): Promise<SignedRecord> {
  const record = await findRecord(em, idOrReference);
  if (!record || !canRead(record, viewer)) throw DomainError.notFound('Record');
  return record;
}

/**
 * Ids of the records the identity may read, newest first, with the total. The identity graph is
 * joined in SQL: initiator identity, linked participant identity or a participant contact point
 * that is one of the identity's verified contact points.
 */
export async function readableRecordIds(
  em: EntityManager,
  identityId: string,
  filter: { status?: string | null; type?: string | null; limit: number; offset: number },
): Promise<{ ids: string[]; total: number }> {
  const params: unknown[] = [identityId, identityId, identityId];
  let where = `(r.initiator_identity_id = ?
       or exists (select 1 from participants p
                   where p.record_id = r.id and p.removed_at is null
                     and (p.identity_id = ?
                          or exists (select 1 from contact_points c
                                      where c.identity_id = ? and c.type = p.contact_point_type
                                        and c.value = p.contact_point_value))))`;
  if (filter.status) {
    where += ' and r.status = ?';
    params.push(filter.status);
  }
  if (filter.type) {
    where += ' and r.type = ?';
    params.push(filter.type);
  }
  const [count] = await em.execute<{ total: string }[]>(`select count(*) as total from records r where ${where}`, params);
  const rows = await em.execute<{ id: string }[]>(
    `select r.id from records r where ${where} order by r.created_at desc, r.id desc limit ? offset ?`,
    [...params, filter.limit, filter.offset],
  );
  return { ids: rows.map((row) => row.id), total: Number(count?.total ?? 0) };
}
