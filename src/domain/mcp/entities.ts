import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { randomUUID } from 'node:crypto';
import { OptionalProps } from '@mikro-orm/core';
import type { Scope } from '../identity/principal.js';

/** How a session's client takes secret inputs: through a page of ours (URL-mode elicitation) or as tool arguments. */
export type SecretInputMode = 'url' | 'argument';

/**
 * One MCP protocol session (the `Mcp-Session-Id` a client keeps), stored so that any instance
 * behind a non-sticky balancer can continue it. The id the client holds is a secret (a session-bound
 * grant rides on it): only its hash is kept; `id` is the internal key principals name.
 */
@Entity({ tableName: 'mcp_sessions' })
export class McpSession {
  [OptionalProps]?: 'clientName' | 'secretInput' | 'owner' | 'closedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', unique: true, hidden: true })
  sessionHash!: string;

  /** The protocol version negotiated at `initialize`. */
  @Property({ type: 'text' })
  protocolVersion!: string;

  @Property({ type: 'text', nullable: true })
  clientName: string | null = null;

  /** How the client takes secret inputs: `url` (it declared URL-mode elicitation) or `argument`. */
  @Property({ type: 'text', default: 'argument' })
  secretInput: SecretInputMode = 'argument';

  /** The endpoint and transport credential that initialized it; every later request must come with the same (sessions.ts). */
  @Property({ type: 'text', nullable: true })
  owner: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  lastSeenAt!: Date;

  /** Idle expiry, pushed forward as the session is used. */
  @Property({ type: 'datetime', columnType: 'timestamptz' })
  @Index()
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  closedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/**
 * The retrieval grant an `authenticate` code opens on an MCP session: `retrieve` only, at most 600
 * seconds. `tokenHash` is set when the client asked for a manual transport token (a client that
 * cannot keep session state); that token works only as the MCP transport's bearer credential.
 */
@Entity({ tableName: 'mcp_grants' })
export class McpGrant {
  [OptionalProps]?: 'tokenHash' | 'revokedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => McpSession, { mapToPk: true, deleteRule: 'cascade' })
  @Index()
  session!: string;

  @Property({ type: 'uuid' })
  identity!: string;

  @Property({ type: 'text[]' })
  scopes!: Scope[];

  @Property({ type: 'text', nullable: true, unique: true, hidden: true })
  tokenHash: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/**
 * A guarded action's confirmation: issued by a preview, spent once by the execute tool with the
 * same principal, scope, record, target, arguments and record version. Only the token's hash is kept.
 */
@Entity({ tableName: 'mcp_confirmations' })
export class McpConfirmation {
  [OptionalProps]?: 'consumedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', unique: true, hidden: true })
  tokenHash!: string;

  /** Who previewed: the principal's kind and credential id (an API key, a grant, a session). */
  @Property({ type: 'text' })
  principal!: string;

  /** The execute tool the token is for, and the scope it needs. */
  @Property({ type: 'text' })
  action!: string;

  @Property({ type: 'text' })
  scope!: string;

  @Property({ type: 'uuid' })
  record!: string;

  /** What inside the record the action touches (a participant, a counter, the record itself). */
  @Property({ type: 'text' })
  target!: string;

  /** SHA-256 of the canonical JSON of the action's arguments. */
  @Property({ type: 'text' })
  argumentsHash!: string;

  @Property({ type: 'integer' })
  recordVersion!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  @Index()
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  consumedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/**
 * A link an MCP session's tool call gave the human (URL-mode elicitation), where they enter a
 * secret input (a signature method's mailed code or passkey, a sign-in code) on the service's own
 * page, so that it never passes through the assistant. Single use, short-lived, bound to its session, the caller,
 * the record's version and the method; the first browser to open it keeps it. Only hashes are kept.
 */
@Entity({ tableName: 'mcp_secret_inputs' })
export class McpSecretInput {
  [OptionalProps]?: 'principal' | 'recordId' | 'recordVersion' | 'methodType' | 'verificationEventId' | 'browserHash' | 'completedAt' | 'createdAt';

  /** The elicitation id the client is given. */
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', unique: true, hidden: true })
  tokenHash!: string;

  @ManyToOne(() => McpSession, { mapToPk: true, deleteRule: 'cascade' })
  @Index()
  session!: string;

  /** `signature`: a signature method's input; `sign_in`: a sign-in code that opens the session's retrieval grant. */
  @Property({ type: 'text' })
  purpose!: 'signature' | 'sign_in';

  /** signature: the caller the tool call ran as (ids and scopes only, no secret): the page acts as it. */
  @Property({ type: 'json', nullable: true })
  principal: Record<string, unknown> | null = null;

  @Property({ type: 'uuid', nullable: true })
  recordId: string | null = null;

  @Property({ type: 'integer', nullable: true })
  recordVersion: number | null = null;

  @Property({ type: 'text', nullable: true })
  methodType: string | null = null;

  /** sign_in: the code's verification event (request_authentication_otp). */
  @Property({ type: 'uuid', nullable: true })
  verificationEventId: string | null = null;

  /** The first browser that opened the link (hash of a key it keeps). */
  @Property({ type: 'text', nullable: true, hidden: true })
  browserHash: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  @Index()
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  completedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}
