import type { EntityManager } from '@mikro-orm/postgresql';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';
import { CardTicket } from './entities.js';

export type TicketKind = CardTicket['kind'];

/**
 * A short-lived, single-use ticket for what `subjectId` names (a record's card or PDF, an export's
 * ZIP), for a client that opens links without the caller's credential. Only the token's hash is
 * stored; the token is answered once, in the URL, and never kept or logged.
 */
export async function issueTicket(
  em: EntityManager,
  ticket: { kind: TicketKind; subjectId: string; identityId: string; now: Date; ttlSeconds: number },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(ticket.now.getTime() + ticket.ttlSeconds * 1000);
  em.create(CardTicket, { tokenHash: sha256Hex(token), kind: ticket.kind, recordId: ticket.subjectId, identityId: ticket.identityId, expiresAt, createdAt: ticket.now });
  await em.flush();
  return { token, expiresAt };
}

/**
 * Redeems a ticket, once: the update that marks it redeemed is the check, so of many concurrent
 * redemptions exactly one wins. Unknown, used, expired and other-kind tickets are refused alike
 * (not_found, with `unknown` as the message). Answers what the ticket was for.
 */
export async function redeemTicket(em: EntityManager, token: string, kind: TicketKind, now: Date, unknown: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]{20,128}$/.test(token)) throw DomainError.invalid(['token'], 'A ticket is 20 to 128 URL-safe characters', 'invalid_ticket');
  const rows = await em.execute<{ record_id: string }[]>(
    'update card_tickets set redeemed_at = ? where token_hash = ? and kind = ? and redeemed_at is null and expires_at > ? returning record_id',
    [now, sha256Hex(token), kind, now],
  );
  const subjectId = rows[0]?.record_id;
  if (!subjectId) throw new DomainError('not_found', unknown);
  return subjectId;
}
