import { createHmac } from 'node:crypto';
import type { Response } from 'express';
import type { Logger } from 'pino';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { openSealed, sealBytes } from '../domain/shared/crypto.js';
import { CACHE_CONTROL } from '../domain/shared/cache-policy.js';

/**
 * The key a session's stored events are sealed under (AES-256-GCM), derived from the client's
 * Mcp-Session-Id, which the database never holds (only its hash): answers carry confirmation and
 * transport tokens, and whoever reads the table without the session id reads none of them.
 */
export function eventKey(sessionId: string): Buffer {
  return createHmac('sha256', sessionId).update('record-signing mcp stream events').digest();
}

/** An event of an answer stream as a resumed stream sends it again: its id and its JSON-RPC message's text (null: the priming event). */
type StoredMcpEvent = { id: string; message: string | null };

/** The stored events of answer streams (src/infrastructure/mcp/events.ts), bound to a stored session's key and to the caller they were made for. */
export type McpEventLog = {
  newStream(): string;
  store(sessionKey: string, caller: string, stream: string, message: string | null, endsStream?: boolean): Promise<string>;
  after(sessionKey: string, caller: string, eventId: string): Promise<{ events: StoredMcpEvent[]; ended: boolean } | null>;
};

/** The `retry:` an answer's priming event gives: how soon a client whose stream dropped reconnects. */
export const SSE_RETRY_MS = 1000;
/** How long a request whose client went away mid-answer runs on for a resumption (its response is stored). */
const DETACHED_RUN_MS = 5 * 60_000;
/** A resumed stream waits this long for events still to come, then ends (the client reconnects after `retry:`). */
const RESUME_HOLD_MS = 25_000;
const RESUME_POLL_MS = 200;

/**
 * The SDK's event store for one POST's transport on a stored session: the SDK writes a priming event
 * (`id:` and `retry:`, empty data) first on the SSE answer and stores every message it sends, each with
 * the id the client may resume after. The SDK's stream ids are replaced by fresh random ones.
 * Storing is best effort: a failure is logged and the message still goes out live (with an id that
 * resumes nothing).
 */
export class RequestEventStore implements EventStore {
  private readonly streams = new Map<string, string>();
  private readonly waiting: Set<RequestId>;
  private chain: Promise<unknown> = Promise.resolve();
  private stored = false;
  private ended = false;
  private onEnded: (() => void) | null = null;

  constructor(
    private readonly log: McpEventLog,
    private readonly sessionKey: string,
    /** Whom the answer is for (`credentialKey` of the POST's caller): only they resume it. */
    private readonly caller: string,
    private readonly key: Buffer,
    requestIds: RequestId[],
    private readonly logger: Logger,
  ) {
    this.waiting = new Set(requestIds);
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    let stream = this.streams.get(streamId);
    if (stream === undefined) {
      stream = this.log.newStream();
      this.streams.set(streamId, stream);
    }
    const response = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const ends = response && message.id !== undefined && this.waiting.delete(message.id) && this.waiting.size === 0;
    const priming = Object.keys(message).length === 0;
    // One at a time: a stream's events commit in the order of their sequence, so a resumed stream that
    // reads while more are stored never skips one.
    const storing = this.chain.then(() => this.log.store(this.sessionKey, this.caller, stream, priming ? null : sealBytes(Buffer.from(JSON.stringify(message)), this.key), ends));
    this.chain = storing.catch(() => undefined);
    try {
      const id = await storing;
      this.stored = true;
      return id;
    } catch (error) {
      this.logger.warn({ err: error }, 'MCP stream event not stored: the stream cannot be resumed');
      return `${stream}.0`;
    } finally {
      if (ends) {
        this.ended = true;
        this.onEnded?.();
      }
    }
  }

  /** Not used: `GET /mcp` resumes with {@link resumeStream}, on any instance. */
  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const found = await this.log.after(this.sessionKey, this.caller, lastEventId);
    if (!found) throw new Error('unknown event id');
    for (const event of found.events) if (event.message) await send(event.id, JSON.parse(openSealed(event.message, this.key).toString()) as JSONRPCMessage);
    return lastEventId.split('.')[0]!;
  }

  /** Whether the client may hold an event id of a stream whose responses are still to come. */
  get pending(): boolean {
    return this.stored && !this.ended;
  }

  /** Resolves when the last response is stored, or after the detached run's limit. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, DETACHED_RUN_MS);
      timer.unref();
      this.onEnded = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.ended) this.onEnded();
    });
  }
}

/**
 * Answers a resumption (`GET /mcp` with `Last-Event-ID`, already checked for session and credential) for `caller`: the
 * stream's events after that id, then those still to come while the request runs on (on whichever
 * instance); the stream ends with its last response, or after a while (the client comes back after
 * `retry:` with the last id it got). Answers false, writing nothing, when the id is not one of this
 * session's live events made for this caller (another caller presenting the session id gets nothing).
 */
export async function resumeStream(res: Response, log: McpEventLog, sessionKey: string, caller: string, key: Buffer, lastEventId: string): Promise<boolean> {
  let found = await log.after(sessionKey, caller, lastEventId);
  if (!found) return false;
  let closed = false;
  res.on('close', () => (closed = true));
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': CACHE_CONTROL.stream, Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
  res.write(`retry: ${SSE_RETRY_MS}\n\n`);
  const deadline = Date.now() + RESUME_HOLD_MS;
  let last = lastEventId;
  for (;;) {
    for (const event of found.events) {
      if (event.message) res.write(`event: message\nid: ${event.id}\ndata: ${openSealed(event.message, key).toString()}\n\n`);
      last = event.id;
    }
    if (found.ended || closed || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, RESUME_POLL_MS));
    if (closed) break;
    const next = await log.after(sessionKey, caller, last);
    if (!next) break;
    found = next;
  }
  res.end();
  return true;
}
