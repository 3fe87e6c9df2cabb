import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { McpSession } from '../../domain/mcp/entities.js';

/**
 * One server-sent event of an MCP answer stream (SEP-1699 resumption), kept for a few minutes so
 * that a client whose connection dropped reconnects (`GET /mcp` with `Last-Event-ID`) to any
 * instance and gets what followed. Bound to the stored session; `stream` is a random id per POST
 * answer, so an event id names its session's stream and cannot be guessed from another session's.
 */
@Entity({ tableName: 'mcp_events' })
@Index({ properties: ['session', 'stream', 'seq'] })
export class McpEvent {
  [OptionalProps]?: 'seq' | 'message' | 'endsStream' | 'caller' | 'createdAt';

  /** The order of events (monotonic across all streams; an event id carries it after its stream). */
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  seq!: string;

  @ManyToOne(() => McpSession, { mapToPk: true, deleteRule: 'cascade' })
  session!: string;

  @Property({ type: 'uuid' })
  stream!: string;

  /** The JSON-RPC message as it was sent (JSON text); null for the priming event (empty data). */
  @Property({ type: 'text', nullable: true })
  message: string | null = null;

  /** Whom the stream was made for (`credentialKey` of the POST's caller): only that caller resumes it. */
  @Property({ type: 'text', default: 'anonymous' })
  caller: string = 'anonymous';

  /** The last response the stream's request(s) waited for: the stream is complete with it. */
  @Property({ type: 'boolean', default: false })
  endsStream: boolean = false;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  @Index()
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}
