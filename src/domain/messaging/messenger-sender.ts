import type { EntityManager } from '@mikro-orm/postgresql';
import { normalizeMessengerHandle } from '../identity/contact-points.js';

/** Sends a text to a messenger chat. Adapter: the platform's bot API (BotApiMessengerSender). */
export interface MessengerSender {
  send(chatId: string, text: string): Promise<void>;
}

/**
 * Why a message did not go out, in our own words only. `permanent`: the platform refused it for good
 * (a 4xx other than 429: the chat is gone, the bot blocked), so retrying cannot help.
 */
export class MessengerSendError extends Error {
  constructor(
    message: string,
    readonly options: { permanent?: boolean; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'MessengerSendError';
  }

  get permanent(): boolean {
    return this.options.permanent === true;
  }

  get retryAfterSeconds(): number | undefined {
    return this.options.retryAfterSeconds;
  }
}

/**
 * The platform's bot API (`<base>/bot<token>/sendMessage`). The token is part of the URL, so
 * neither the URL nor the platform's answer ever goes into an error message or a log; a 429's
 * `parameters.retry_after` is the only thing read from the answer.
 */
export class BotApiMessengerSender implements MessengerSender {
  constructor(
    private readonly apiBase: string,
    private readonly botToken: string,
    private readonly timeoutMs = 5000,
  ) {}

  async send(chatId: string, text: string): Promise<void> {
    let status: number;
    let retryAfterSeconds: number | undefined;
    try {
      const response = await fetch(`${this.apiBase}/bot${this.botToken}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: chatId, text, disable_web_page_preview: true }),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      status = response.status;
      if (status === 429) retryAfterSeconds = retryAfter(await response.text().catch(() => ''));
      else await response.body?.cancel();
    } catch {
      throw new MessengerSendError('messenger platform unreachable');
    }
    if (status === 429) throw new MessengerSendError('messenger platform answered 429', { retryAfterSeconds });
    if (status >= 500) throw new MessengerSendError(`messenger platform answered ${status}`);
    if (status >= 300) throw new MessengerSendError(`messenger platform answered ${status}`, { permanent: true });
  }
}

/** A 429 answer's `parameters.retry_after` (seconds), capped at an hour; undefined when absent. */
function retryAfter(body: string): number | undefined {
  try {
    const seconds = (JSON.parse(body) as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof seconds === 'number' && seconds > 0 ? Math.min(3600, Math.ceil(seconds)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A bot can only write to people who wrote to it first: every inbound message teaches the chat id
 * of its sender, under the normalized username and under the numeric user id.
 */
export async function rememberChat(em: EntityManager, username: string | null, userId: string, chatId: string, now: Date): Promise<void> {
  const keys = [userId, ...(username ? [normalizeMessengerHandle(username)] : [])];
  for (const key of keys) {
    await em.execute(
      `insert into messenger_chats (handle, chat_id, updated_at) values (?, ?, ?)
       on conflict (handle) do update set chat_id = excluded.chat_id, updated_at = excluded.updated_at`,
      [key, chatId, now],
    );
  }
}

export async function chatFor(em: EntityManager, handle: string): Promise<string | null> {
  const [row] = await em.execute<{ chat_id: string }[]>('select chat_id from messenger_chats where handle = ?', [normalizeMessengerHandle(handle)]);
  return row?.chat_id ?? null;
}
