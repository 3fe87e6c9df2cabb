import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { ContactPoint } from './entities.js';
import type { OtpService } from './otp-service.js';
import type { Principal } from './principal.js';
import { requireAccess } from './operation-access.js';
import { recordVerifiedContactPoint } from './contact-points.js';

/**
 * The identity graph: verified contact points linked to one identity. It decides which records a
 * person may read and which participant they act as; it never makes anyone a signer.
 */
export class IdentityService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      otp: OtpService;
      clock: Clock;
      /** Called after identities merged: sessions and keys of the merged identity now act for the caller's. */
      credentialsChanged: () => Promise<void>;
    },
  ) {}

  async contactPoints(principal: Principal | null): Promise<ContactPoint[]> {
    const caller = requireAccess(principal, 'identity.listContactPoints');
    return contactPointsOf(this.deps.orm.em.fork(), caller.identityId);
  }

  /**
   * Links the address proven by a `contact_point_link` code to the caller's identity. When the
   * address already belonged to another identity, the holder has now proven both, so the two
   * graphs merge into the caller's.
   */
  async link(principal: Principal | null, verificationEventId: string, code: string): Promise<ContactPoint> {
    const caller = requireAccess(principal, 'identity.linkContactPoint');
    let merged = false;
    const linked = await this.deps.otp.verify(verificationEventId, code, 'contact_point_link', async (tx, event) => {
      const now = this.deps.clock.now();
      const existing = await tx.findOne(ContactPoint, { type: 'email', value: event.destination });
      if (existing && existing.identity !== caller.identityId) {
        await mergeIdentity(tx, existing.identity, caller.identityId);
        merged = true;
        tx.clear();
      }
      return recordVerifiedContactPoint(tx, 'email', event.destination, now, caller.identityId);
    });
    if (merged) await this.deps.credentialsChanged();
    return linked;
  }
}

async function contactPointsOf(em: EntityManager, identityId: string): Promise<ContactPoint[]> {
  return em.find(ContactPoint, { identity: identityId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** Moves everything that hangs off `from` to `into`; `from` is left empty and removed. */
async function mergeIdentity(em: EntityManager, from: string, into: string): Promise<void> {
  for (const table of ['contact_points', 'access_tokens', 'api_keys', 'connectors', 'participants', 'passkey_credentials', 'webhook_endpoints']) {
    await em.execute(`update ${table} set identity_id = ? where identity_id = ?`, [into, from]);
  }
  await em.execute(`update records set initiator_identity_id = ? where initiator_identity_id = ?`, [into, from]);
  await em.execute(`delete from identities where id = ?`, [from]);
}
