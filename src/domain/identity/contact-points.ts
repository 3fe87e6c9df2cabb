import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256Hex } from '../shared/crypto.js';
import { ContactPoint, Identity } from './entities.js';

// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is proven by the OTP.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(value: string): string {
  return value.normalize('NFC').trim().toLowerCase();
}

export function isValidEmail(normalized: string): boolean {
  return normalized.length <= 320 && EMAIL.test(normalized);
}

/** Messenger handles: a leading @ is dropped and case is folded (platform usernames are case-insensitive). */
export function normalizeMessengerHandle(value: string): string {
  return value.normalize('NFC').trim().replace(/^@/, '').toLowerCase();
}

function contactValueHash(value: string): string {
  return sha256Hex(value);
}

/**
 * Records that `value` of `type` was just verified. The contact point joins the given identity, or,
 * when none is given, the identity that already holds it or a new one.
 */
export async function recordVerifiedContactPoint(
  em: EntityManager,
  type: string,
  value: string,
  now: Date,
  identityId?: string,
): Promise<ContactPoint> {
  let point = await em.findOne(ContactPoint, { type, value });
  if (!point) {
    let owner = identityId;
    if (!owner) {
      const identity = new Identity();
      identity.createdAt = now;
      em.persist(identity);
      owner = identity.id;
    }
    point = em.create(ContactPoint, {
      identity: owner,
      type,
      value,
      valueHash: contactValueHash(value),
      firstVerifiedAt: now,
      lastVerifiedAt: now,
      createdAt: now,
    });
  } else {
    point.firstVerifiedAt ??= now;
    point.lastVerifiedAt = now;
  }
  await em.flush();
  return point;
}
