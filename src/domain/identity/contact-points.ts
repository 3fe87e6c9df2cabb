import type { EntityManager } from '@mikro-orm/postgresql';
import { sha256Hex } from '../shared/crypto.js';
import { isPrintable } from '../shared/unicode.js';
import { randomUUID } from 'node:crypto';
import { ContactPoint } from './entities.js';

// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is proven by the OTP.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(value: string): string {
  return value.normalize('NFC').trim().toLowerCase();
}

/** One check for every transport: invisible or control characters make an address invalid, never "another" address. */
export function isValidEmail(normalized: string): boolean {
  return normalized.length <= 320 && EMAIL.test(normalized) && isPrintable(normalized);
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
 * when none is given, the identity that already holds it or a new one. Race-safe: parallel first
 * sign-ins of one address insert with `on conflict do nothing`, and the losers take the winner's point.
 */
export async function recordVerifiedContactPoint(
  em: EntityManager,
  type: string,
  value: string,
  now: Date,
  identityId?: string,
): Promise<ContactPoint> {
  const existing = await em.findOne(ContactPoint, { type, value });
  if (existing) {
    existing.firstVerifiedAt ??= now;
    existing.lastVerifiedAt = now;
    await em.flush();
    return existing;
  }
  let owner = identityId;
  if (!owner) {
    owner = randomUUID();
    await em.execute('insert into identities (id, created_at) values (?, ?)', [owner, now]);
  }
  const inserted = await em.execute<{ id: string }[]>(
    `insert into contact_points (id, identity_id, type, value, value_hash, first_verified_at, last_verified_at, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?) on conflict (type, value) do nothing returning id`,
    [randomUUID(), owner, type, value, contactValueHash(value), now, now, now],
  );
  if (inserted.length === 0 && !identityId) await em.execute('delete from identities where id = ?', [owner]);
  if (inserted.length === 0) {
    await em.execute('update contact_points set last_verified_at = ?, first_verified_at = coalesce(first_verified_at, ?) where type = ? and value = ?', [now, now, type, value]);
  }
  return em.findOneOrFail(ContactPoint, { type, value }, { refresh: true });
}
