import { Agenda, type AgendaBackend, type Job, type JobDefinition } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { PubSub } from 'type-graphql';
import type { Logger } from 'pino';
import { resilientPool } from '../infrastructure/database.js';
import { noTracing, type Tracing } from '../domain/shared/tracing.js';
import { PubSubJobChannel } from './job-channel.js';

export type QueueOptions = {
  databaseUrl: string;
  /** For the schema lock, a session's: DATABASE_DIRECT_URL behind a pooler (default: databaseUrl). */
  directUrl?: string;
  mongodbUrl?: string;
  logger: Logger;
  /**
   * Carries the "a job was saved" wake-ups between instances (the service's one LISTEN connection). A
   * process that only enqueues (the ops CLI) has none: the instances find its jobs at their next poll.
   */
  pubSub?: PubSub;
  /**
   * How long a job's lock holds without a heartbeat: a worker that died or lost the database gives
   * its jobs up this long after its last heartbeat (a running job renews it every third of it).
   */
  lockLifetimeMs?: number;
  processEvery?: string | number;
  /** Each job runs in a span, continuing the trace stored with it (`tracedData`), else a trace of its own. */
  tracing?: Tracing;
};

/** Each queue's tracing (set by createQueue), read by the jobs defined and enqueued on it. */
const queueTracing = new WeakMap<Agenda, Tracing>();

/** Job data carrying the current trace context (tracing on), so that the job continues this trace. */
export function tracedData<Data extends object>(agenda: Agenda, data: Data): Data & { traceparent?: string } {
  const traceparent = (queueTracing.get(agenda) ?? noTracing).traceparent();
  return traceparent ? { ...data, traceparent } : data;
}

/** The default lock lifetime: a dead worker's job is taken over within half a minute (plus one poll). */
const JOB_LOCK_LIFETIME_MS = 30_000;

const SCHEMA_LOCK = 7204122;

/**
 * The Agenda instance: PostgreSQL backend by default (the service's own database), MongoDB when
 * MONGODB_URL is set. Several instances may share one queue; each job runs on one of them.
 */
export async function createQueue(options: QueueOptions): Promise<{ agenda: Agenda; close: () => Promise<void> }> {
  const { backend, close } = options.mongodbUrl ? await mongoBackend(options.mongodbUrl) : await postgresBackend(options.databaseUrl, options.directUrl ?? options.databaseUrl, options.logger);
  const agenda = new Agenda({
    backend,
    ...(options.pubSub ? { notificationChannel: new PubSubJobChannel(options.pubSub) } : {}),
    name: `record-signing-${process.pid}`,
    processEvery: options.processEvery ?? '5 seconds',
    defaultLockLifetime: options.lockLifetimeMs ?? JOB_LOCK_LIFETIME_MS,
  });
  if (options.tracing) queueTracing.set(agenda, options.tracing);
  agenda.on('error', (error: Error) => options.logger.error({ err: error }, 'job queue error'));
  agenda.on('fail', (error: Error, job?: { attrs?: { name?: string } }) =>
    options.logger.warn({ err: error, job: job?.attrs?.name }, 'job failed'),
  );
  return { agenda, close };
}

async function postgresBackend(url: string, directUrl: string, logger: Logger): Promise<{ backend: AgendaBackend; close: () => Promise<void> }> {
  // Connections dropped by the server are replaced on next use; never crash on them.
  const pool = resilientPool({ connectionString: url, max: 4 }, (error) => logger.warn({ err: error }, 'job queue pool connection lost'));
  // The backend creates its tables on connect; two instances doing it at once collide, so one at a time
  // (a session lock: on its own direct connection, which a pooler in transaction mode would not keep).
  const lock = new pg.Client({ connectionString: directUrl });
  lock.on('error', () => undefined);
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    const probe = new PostgresBackend({ pool, disableNotifications: true });
    await probe.connect();
    await probe.disconnect();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [SCHEMA_LOCK]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
  // No notification channel of the backend's own (a second LISTEN connection): PubSubJobChannel.
  const backend = new PostgresBackend({ pool, ensureSchema: false, disableNotifications: true });
  return { backend, close: () => pool.end() };
}

async function mongoBackend(url: string): Promise<{ backend: AgendaBackend; close: () => Promise<void> }> {
  // Loaded only when MONGODB_URL is set: the driver is about 6 MiB of heap a PostgreSQL deployment never uses.
  const { MongoBackend, MongoClient } = await import('@agendajs/mongo-backend');
  // An unreachable server would crash the process from the backend's constructor: check first.
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    await client.db().command({ ping: 1 });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`MONGODB_URL is set but MongoDB cannot be reached: ${(error as Error).message}`, { cause: error });
  }
  return { backend: new MongoBackend({ mongo: client.db() }), close: () => client.close() };
}

/**
 * Defines a job whose lock is renewed while it runs (every third of the lock lifetime), so that the
 * lifetime can be short: a job whose worker died, or lost the database, is taken over by another
 * worker within one lifetime, and a job that simply runs long is never taken from a live worker.
 */
export function defineJob<Data = unknown>(
  agenda: Agenda,
  name: string,
  handler: (job: Job<Data>) => Promise<void>,
  options: Partial<Pick<JobDefinition, 'lockLifetime' | 'concurrency' | 'backoff'>> = {},
): void {
  const lifetime = options.lockLifetime ?? agenda.attrs.defaultLockLifetime;
  const tracing = () => queueTracing.get(agenda) ?? noTracing;
  agenda.define<Data>(
    name,
    async (job) => {
      const heartbeat = setInterval(() => void job.touch().catch(() => undefined), Math.max(100, Math.floor(lifetime / 3)));
      heartbeat.unref();
      try {
        const stored = (job.attrs.data as { traceparent?: unknown } | undefined)?.traceparent;
        await tracing().continueTrace(typeof stored === 'string' ? stored : null, `job ${name}`, { 'job.name': name }, () => handler(job));
      } finally {
        clearInterval(heartbeat);
      }
    },
    options,
  );
}
