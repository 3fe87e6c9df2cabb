import { MikroORM, defineConfig, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { CompiledQuery } from 'kysely';
import { AccessToken, ApiKey, ContactPoint, Identity, RateLimitWindow, VerificationEvent } from '../domain/identity/entities.js';
import { Connector, OAuthPayload, OAuthServerKey } from '../domain/identity/connector-entities.js';
import { CounterProposal, Participant, SignedRecord } from '../domain/records/entities.js';
import { MessengerChat, MessengerUpdate, PasskeyCredential, SignatureExecution, SignatureMethod } from '../domain/ceremonies/entities.js';
import { migrationsList } from '../domain/migrations/index.js';
import { OutboxEvent } from '../domain/outbox/entities.js';
import { WebhookDelivery, WebhookEndpoint } from '../domain/webhooks/entities.js';
import { QueuedMessage } from '../domain/mail/mail-queue.js';
import { QueuedMessengerMessage } from '../domain/messaging/messenger-queue.js';
import { AuditEntry } from '../domain/records/audit-trail.js';
import { RecordSeal } from '../domain/sealing/seal.js';
import { CardTicket, SealedArtifact, SealedDocumentVersion } from '../domain/sealing/entities.js';
import { AnchorBatch } from '../domain/anchoring/entities.js';
import { McpConfirmation, McpGrant, McpSecretInput, McpSession } from '../domain/mcp/entities.js';
import { McpEvent } from './mcp/event-entities.js';
import { IdempotencyKey } from '../domain/idempotency/entities.js';
import { StuckWorkWarning } from '../domain/maintenance/entities.js';
import { Team, TeamActivityEntry, TeamInvitation, TeamMember } from '../domain/teams/entities.js';
import { Template } from '../domain/templates/entities.js';
import { BulkSend, BulkSendRow } from '../domain/bulk-sends/entities.js';
import { ExportRecord, RecordExport } from '../domain/exports/entities.js';
import { PREPARED_STATEMENTS, type PreparedStatements } from '../domain/shared/sql.js';
import { preparedOnConnection, releasableWhenLost, rememberPreparedName, type TransactionConnection } from './library-patches.js';

const entities = [
  Identity,
  ContactPoint,
  VerificationEvent,
  AccessToken,
  ApiKey,
  RateLimitWindow,
  Connector,
  OAuthPayload,
  OAuthServerKey,
  SignedRecord,
  Participant,
  CounterProposal,
  SignatureExecution,
  SignatureMethod,
  PasskeyCredential,
  MessengerUpdate,
  MessengerChat,
  OutboxEvent,
  WebhookEndpoint,
  WebhookDelivery,
  AuditEntry,
  RecordSeal,
  SealedArtifact,
  SealedDocumentVersion,
  CardTicket,
  AnchorBatch,
  QueuedMessage,
  QueuedMessengerMessage,
  McpSession,
  McpSecretInput,
  McpGrant,
  McpConfirmation,
  McpEvent,
  IdempotencyKey,
  StuckWorkWarning,
  Team,
  TeamMember,
  TeamInvitation,
  TeamActivityEntry,
  Template,
  BulkSend,
  BulkSendRow,
  RecordExport,
  ExportRecord,
];

export type DatabaseOptions = {
  url: string;
  poolMax?: number;
  /** How long a request waits for a free pooled connection before failing (milliseconds). */
  acquireTimeoutMs?: number;
  /** PostgreSQL `statement_timeout` for every pooled connection (milliseconds, 0 = none). */
  statementTimeoutMs?: number;
  /** PostgreSQL `idle_in_transaction_session_timeout` (milliseconds, 0 = none): a stuck transaction is ended by the server. */
  idleInTransactionTimeoutMs?: number;
  /** Emit MikroORM's query log at debug level through this function. */
  debugLog?: (message: string) => void;
  /**
   * `url` is a pooler in transaction mode (PgBouncer): consecutive statements may reach different
   * server sessions, and the pooler refuses startup parameters. No timeouts are sent at connect (they
   * are the role's: applyRoleTimeouts) and no statement is prepared by name.
   */
  behindPooler?: boolean;
};

export function ormConfig(options: DatabaseOptions): Options {
  return defineConfig({
    clientUrl: options.url,
    // libpq's `?host=` (a Unix socket directory, or a host name) wins over the URL's host, as it does
    // for psql and pg; MikroORM reads only the URL's host part.
    ...socketHostOf(options.url),
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator, { register: (orm) => orm.config.registerExtension(PREPARED_STATEMENTS, () => preparedStatements(options.behindPooler ?? false)) }],
    pool: { max: options.poolMax ?? 10 },
    onCreateConnection: async (connection) => releasableWhenLost(connection as TransactionConnection),
    // Passed to pg's Pool: a request never waits forever for a connection, and the server ends
    // statements and idle transactions that run away.
    driverOptions: {
      // Every pooled connection runs preparedQuery's statements as named prepared statements (a
      // pooler in transaction mode would send them to a session that never prepared them).
      onPoolCreated: (pool: pg.Pool) => (options.behindPooler ? undefined : pool.on('connect', preparedOnConnection)),
      connectionTimeoutMillis: options.acquireTimeoutMs ?? 10_000,
      // The client's own deadline, a little past the server's: a frozen or unreachable server never
      // ends a statement itself, and a request must not wait on it forever.
      query_timeout: (options.statementTimeoutMs || 30_000) + 5000,
      // Startup parameters, which a pooler refuses ("unsupported startup parameter"): there, the role's settings.
      ...(options.behindPooler ? {} : serverTimeouts(options)),
    },
    debug: Boolean(options.debugLog),
    logger: options.debugLog,
    migrations: {
      migrationsList,
      path: 'src/domain/migrations',
      pathTs: 'src/domain/migrations',
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
    },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ignoreUndefinedInQuery: true,
  });
}

/** The server's own deadlines: a statement that runs away, a transaction left idle. */
function serverTimeouts(options: Pick<DatabaseOptions, 'statementTimeoutMs' | 'idleInTransactionTimeoutMs'>): { statement_timeout: number; idle_in_transaction_session_timeout: number } {
  return { statement_timeout: options.statementTimeoutMs ?? 30_000, idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000 };
}

/**
 * Behind a pooler in transaction mode, the server timeouts cannot be startup parameters, and a `SET`
 * would outlive the transaction on a session others share: they become the role's defaults in this
 * database (`ALTER ROLE … IN DATABASE … SET`), which every new server session takes. Set over the
 * direct connection, only when they differ. A role not allowed to is told what to ask its DBA for.
 */
export async function applyRoleTimeouts(directUrl: string, options: Pick<DatabaseOptions, 'statementTimeoutMs' | 'idleInTransactionTimeoutMs'>, warn: (message: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: directUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ database: string; settings: string[] | null }>(
      `select current_database() as database,
              (select setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole join pg_database d on d.oid = s.setdatabase
                where r.rolname = current_user and d.datname = current_database()) as settings`,
    );
    const { database, settings } = rows[0]!;
    const wanted = Object.entries(serverTimeouts(options)).map(([name, ms]) => `${name}=${ms}ms`);
    const missing = wanted.filter((setting) => !(settings ?? []).includes(setting));
    for (const setting of missing) {
      const [name, value] = setting.split('=') as [string, string];
      const sql = `alter role current_user in database ${client.escapeIdentifier(database)} set ${name} = '${value}'`;
      await client.query(sql).catch((error: Error) => warn(`could not set ${name} on the database role (${error.message}); run as its owner: ${sql.replace('current_user', client.escapeIdentifier(client.user ?? 'current_user'))}`));
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The `host` query parameter of a postgres:// URL, when it names one. */
function socketHostOf(url: string): { host?: string } {
  const host = new URL(url).searchParams.get('host');
  return host ? { host } : {};
}

export async function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/**
 * A pg pool whose connections never end the process when the server drops them (restart, failover,
 * `pg_terminate_backend`). pg-pool listens for errors only on its idle connections and during
 * `pool.query`; a connection checked out and between statements (a transaction held across an
 * await, a job backend's lock) has no listener, and Node treats its `'error'` as unhandled.
 * Every connection gets a listener of its own: the loss is reported once, and the pool discards
 * the connection when it is released (pg marks it unqueryable).
 */
export function resilientPool(config: pg.PoolConfig, onLost: (error: Error) => void): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('connect', (client) => {
    // The server's error message and the socket's end arrive as two errors: one loss.
    let reported = false;
    client.on('error', (error) => {
      if (reported) return;
      reported = true;
      onLost(error);
    });
  });
  // An idle connection's loss reaches the listener above as well: reported there, once.
  pool.on('error', () => undefined);
  return pool;
}

const MIGRATION_LOCK = 7204121;

/**
 * Applies pending migrations. Several instances may start at once on one database: a session-level
 * advisory lock on a dedicated connection lets one migrate while the others wait.
 */
export async function migrate(orm: MikroORM, url: string): Promise<void> {
  const lock = new pg.Client({ connectionString: url });
  // Dropped by the server mid-migration, the lock connection must not end the process: its loss
  // shows as the unlock's failure, and the migrations run in one transaction of the ORM's own.
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}

/** Each statement's prepared name and `$n` text, derived once from its SQL. */
const prepared = new Map<string, { name: string; text: string }>();

/**
 * The domain's `preparedQuery` (src/domain/shared/sql.ts), registered on each ORM as an extension:
 * each statement's name is derived from its text, and the statement runs on the ORM's own pool.
 * `unnamed`: behind a pooler in transaction mode, where a statement prepared by name on one server
 * session may be run on another, statements outside a transaction go unnamed.
 */
function preparedStatements(unnamed: boolean): PreparedStatements {
  return {
    async query<Row>(em: EntityManager, sql: string, values: unknown[]): Promise<Row[]> {
      let statement = prepared.get(sql);
      if (statement === undefined) {
        let n = 0;
        statement = { name: `q${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`, text: sql.replace(/\?/g, () => `$${++n}`) };
        prepared.set(sql, statement);
        rememberPreparedName(statement.text, statement.name);
      }
      const transaction = em.isInTransaction() ? em.getTransactionContext<QueryRunner | undefined>() : undefined;
      if (transaction) {
        // Straight to the transaction's connection with bound values (sent under the statement's prepared
        // name: preparedOnConnection): the ORM would format them into the text and log it first, which is
        // most of what a short statement costs this process.
        // Instants as UTC text, as the ORM formats them (pg would write them in the process's time zone).
        const bound = values.map((value) => (value instanceof Date ? value.toISOString() : value));
        return (await transaction.executeQuery<Row>(CompiledQuery.raw(statement.text, bound))).rows;
      }
      const pool = await em.getConnection().getNativeClient();
      const named = unnamed ? { text: statement.text } : statement;
      return (await pool.query<Row & pg.QueryResultRow>({ ...named, values })).rows;
    },
  };
}

/** What a transaction context of the ORM runs a compiled statement with (Kysely's transaction). */
type QueryRunner = { executeQuery<Row>(query: CompiledQuery): Promise<{ rows: Row[] }> };
