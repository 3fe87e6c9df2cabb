import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../../domain/shared/clock.js';

/** An event of an answer stream as a resumed stream sends it again: its id and its JSON-RPC message's text (null: the priming event). */
type StoredMcpEvent = { id: string; message: string | null };

/** `<stream uuid>.<seq>`: the stream is random per answer, the sequence orders its events. */
const EVENT_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([1-9][0-9]{0,17})$/;

/**
 * The events of MCP answer streams (SSE), in PostgreSQL for a few minutes, so that a client whose
 * connection dropped resumes its stream (`GET /mcp` with `Last-Event-ID`, SEP-1699) on any instance.
 * Every read is bound to the stored session's key and to the caller the stream was made for: another
 * session's event id finds nothing, nor does another caller presenting this session's id.
 */
export class McpEvents {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    /** How long events can be replayed (housekeeping deletes them after). */
    private readonly ttlSeconds = 300,
  ) {}

  /** A new stream's id (unguessable: it is half of every event id of the stream). */
  newStream(): string {
    return randomUUID();
  }

  /**
   * Stores an event (a JSON-RPC message's text; null: the priming event) and answers its id. `caller`:
   * whom the stream is for (`credentialKey`); `endsStream`: the stream's last response.
   */
  async store(sessionKey: string, caller: string, stream: string, message: string | null, endsStream = false): Promise<string> {
    const now = this.clock.now();
    const rows = await this.orm.em.fork().execute<{ seq: string | number }[]>(
      `insert into mcp_events (session_id, caller, stream, message, ends_stream, expires_at, created_at) values (?, ?, ?, ?, ?, ?, ?) returning seq`,
      [sessionKey, caller, stream, message, endsStream, new Date(now.getTime() + this.ttlSeconds * 1000), now],
    );
    return `${stream}.${String(rows[0]!.seq)}`;
  }

  /**
   * The events of this session's stream after `eventId`, in order, and whether the stream is complete
   * (its last response is among them or came before); null when the id is not one of this session's
   * live events made for this caller (malformed, expired, another session's or another caller's).
   */
  async after(sessionKey: string, caller: string, eventId: string): Promise<{ events: StoredMcpEvent[]; ended: boolean } | null> {
    const parsed = EVENT_ID.exec(eventId);
    if (!parsed) return null;
    const [, stream, seq] = parsed as unknown as [string, string, string];
    const now = this.clock.now();
    const em = this.orm.em.fork();
    const anchor = await em.execute<{ ended: boolean }[]>(
      `select bool_or(ends_stream) as ended from mcp_events where session_id = ? and caller = ? and stream = ? and seq <= ? and expires_at > ?
       having count(*) filter (where seq = ?) > 0`,
      [sessionKey, caller, stream, seq, now, seq],
    );
    if (anchor.length === 0) return null;
    const rows = await em.execute<{ seq: string | number; message: string | null; ends_stream: boolean }[]>(
      `select seq, message, ends_stream from mcp_events where session_id = ? and caller = ? and stream = ? and seq > ? and expires_at > ? order by seq`,
      [sessionKey, caller, stream, seq, now],
    );
    return {
      events: rows.map((row) => ({ id: `${stream}.${String(row.seq)}`, message: row.message })),
      ended: anchor[0]!.ended || rows.some((row) => row.ends_stream),
    };
  }
}
