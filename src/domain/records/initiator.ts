import type { EntityManager } from '@mikro-orm/postgresql';
import { ContactPoint } from '../identity/entities.js';
import type { Principal } from '../identity/principal.js';
import { Participant, type SignedRecord } from './entities.js';

export type InitiatorContact = { type: string; value: string };

/** The initiator's contact point: the session's for a bearer, the identity's first email for an API key. */
export async function initiatorContactOf(em: EntityManager, caller: Principal): Promise<InitiatorContact | null> {
  const point =
    caller.kind === 'session'
      ? await em.findOne(ContactPoint, { id: caller.contactPointId })
      : await em.findOne(ContactPoint, { identity: caller.identityId, type: 'email' }, { orderBy: { createdAt: 'asc' } });
  return point ? { type: point.type, value: point.value } : null;
}

/** Every record is created with its initiator participant, linked to the caller's identity. */
export function addInitiator(em: EntityManager, record: SignedRecord, contact: InitiatorContact | null, identityId: string, now: Date): Participant {
  return em.create(Participant, {
    record,
    role: 'initiator',
    position: 0,
    contactPointType: contact?.type === 'email' || contact?.type === 'messenger' ? contact.type : 'unknown',
    contactPointValue: contact?.value ?? null,
    identity: identityId,
    invitedAt: now,
  });
}
