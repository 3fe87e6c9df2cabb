import type { MikroORM } from '@mikro-orm/postgresql';
import { normalizeMessengerHandle } from '../identity/contact-points.js';
import type { Clock } from '../shared/clock.js';
import { constantTimeEqual, sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';
import type { CeremonyService } from './ceremony-service.js';
import { challengeInText, isExpired } from './methods/messenger.js';
import { rememberChat } from '../messaging/messenger-sender.js';

/** Where the inbox reports what it ignored; never given a secret, a challenge or a message text. */
export type InboxLog = {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
};

export type InboxOutcome = 'completed' | 'duplicate' | 'ignored';

type InboundMessage = { messageId: string; text: string; senderId: string; senderUsername: string | null; fromBot: boolean; chatId: string | null };

type Candidate = {
  method_id: string;
  expires_at: string | null;
  contact_point_value: string | null;
  record_id: string;
  record_version: number;
};

/**
 * The messenger platform's side of the `messenger` signature method. Each update is taken once (the
 * update id is recorded first; a redelivery is a duplicate), its text is searched for a pending
 * challenge, and the method completes only when the sender is the participant's own account.
 * Everything else is acknowledged and ignored, so the platform stops redelivering.
 */
export class MessengerInbox {
  private readonly secretDigest: string | null;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      ceremonies: CeremonyService;
      clock: Clock;
      /** The shared webhook secret; unset means the webhook refuses every call. */
      webhookSecret: string | undefined;
      log: InboxLog;
    },
  ) {
    this.secretDigest = deps.webhookSecret ? sha256Hex(deps.webhookSecret) : null;
  }

  async receive(secret: string, update: Record<string, unknown>): Promise<InboxOutcome> {
    this.authorize(secret);
    const updateId = parseUpdateId(update.update_id);
    const em = this.deps.orm.em.fork();
    const inserted = await em.execute<{ update_id: string }[]>(
      'insert into messenger_updates (update_id, received_at) values (?, ?) on conflict do nothing returning update_id',
      [updateId, this.deps.clock.now()],
    );
    if (inserted.length === 0) return 'duplicate';
    try {
      return await this.process(updateId, parseMessage(update.message));
    } catch (error) {
      // Not taken after all: the platform redelivers on the error answer and the retry is processed.
      await em.execute('delete from messenger_updates where update_id = ?', [updateId]);
      throw error;
    }
  }

  /** Checks the webhook secret; the REST facade calls it before reading the body, the inbox again on receipt. */
  authorize(secret: string): void {
    // Digests of equal length: the comparison reveals neither content nor length.
    if (!this.secretDigest || !constantTimeEqual(sha256Hex(secret), this.secretDigest)) {
      throw new DomainError('forbidden', 'Missing or invalid webhook secret');
    }
  }

  private async process(updateId: string, message: InboundMessage | null): Promise<InboxOutcome> {
    if (!message || message.fromBot) return 'ignored';
    if (message.chatId) await rememberChat(this.deps.orm.em.fork(), message.senderUsername, message.senderId, message.chatId, this.deps.clock.now());
    const challenge = challengeInText(message.text);
    if (!challenge) return 'ignored';
    const candidates = await this.deps.orm.em.fork().execute<Candidate[]>(
      `select m.id as method_id, m.state->>'expiresAt' as expires_at, p.contact_point_value, e.record_id, e.record_version
         from signature_methods m
         join signature_executions e on e.id = m.execution_id
         join participants p on p.id = e.participant_id
         join records r on r.id = e.record_id
        where m.method_type = 'messenger' and m.status = 'pending' and m.state->>'challenge' = ?
          and e.status = 'in_progress' and e.record_version = r.current_version
          and r.status in ('draft', 'pending_confirmation')
          and p.contact_point_type = 'messenger' and p.removed_at is null and p.declined_at is null`,
      [challenge],
    );
    if (candidates.length === 0) {
      this.deps.log.info({ updateId }, 'messenger update names no pending challenge; ignored');
      return 'ignored';
    }
    const now = this.deps.clock.now();
    for (const candidate of candidates) {
      if (!isSender(message, candidate.contact_point_value)) {
        this.deps.log.warn({ updateId, methodId: candidate.method_id }, 'messenger challenge sent by an account other than the participant; ignored');
        continue;
      }
      if (!candidate.expires_at || isExpired({ challenge, expiresAt: candidate.expires_at }, now)) {
        this.deps.log.info({ updateId, methodId: candidate.method_id }, 'messenger challenge arrived after it expired; ignored');
        continue;
      }
      const done = await this.deps.ceremonies.completeFromOutside(candidate.method_id, {
        status: 'satisfied',
        evidence: `messenger|${updateId}|${message.messageId}|${message.senderId}|${candidate.record_id}|${candidate.record_version}`,
        step: null,
      });
      if (done) return 'completed';
    }
    return 'ignored';
  }
}

/** The participant's messenger contact point holds a normalized username or the numeric user id. */
function isSender(message: InboundMessage, contactPointValue: string | null): boolean {
  if (!contactPointValue) return false;
  const expected = normalizeMessengerHandle(contactPointValue);
  if (expected === message.senderId) return true;
  return message.senderUsername !== null && normalizeMessengerHandle(message.senderUsername) === expected;
}

function parseUpdateId(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  throw DomainError.invalid(['updateId'], 'update_id must be a non-negative integer', 'invalid_update');
}

/** Only new text messages with a sender can carry a challenge; anything else (edits, joins, callbacks) is ignored. */
function parseMessage(value: unknown): InboundMessage | null {
  if (!isObject(value) || typeof value.text !== 'string' || !isObject(value.from)) return null;
  const { from } = value;
  if (typeof from.id !== 'number' || !Number.isSafeInteger(from.id)) return null;
  return {
    messageId: typeof value.message_id === 'number' ? String(value.message_id) : '',
    text: value.text,
    senderId: String(from.id),
    senderUsername: typeof from.username === 'string' && from.username !== '' ? from.username : null,
    fromBot: from.is_bot === true,
    // Only a private chat is the sender's own: group chats are never used for invitations.
    chatId: isObject(value.chat) && value.chat.type === 'private' && typeof value.chat.id === 'number' ? String(value.chat.id) : null,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
