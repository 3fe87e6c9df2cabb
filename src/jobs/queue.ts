import { Agenda, type AgendaBackend } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import { resilientPool } from '../domain/database.js';
import type { Logger } from 'pino';

export type QueueOptions = {
  databaseUrl: string;
  mongodbUrl?: string;
  logger: Logger;
  /** How long a crashed worker's job stays locked; low in tests so that stop() does not linger. */
  lockLifetimeMs?: number;
  processEvery?: string | number;
};

const SCHEMA_LOCK = 7204122;

/**
 * The Agenda instance: PostgreSQL backend by default (the service's own database), MongoDB when
 * MONGODB_URL is set. Several instances may share one queue; each job runs on one of them.
 */
export async function createQueue(options: QueueOptions): Promise<{ agenda: Agenda; close: () => Promise<void> }> {
  const { backend, close } = options.mongodbUrl ? await mongoBackend(options.mongodbUrl) : await postgresBackend(options.databaseUrl, options.logger);
  const agenda = new Agenda({
    backend,
    name: `record-signing-${process.pid}`,
    processEvery: options.processEvery ?? '5 seconds',
    defaultLockLifetime: options.lockLifetimeMs ?? 10 * 60_000,
  });
  agenda.on('error', (error: Error) => options.logger.error({ err: error }, 'job queue error'));
  agenda.on('fail', (error: Error, job?: { attrs?: { name?: string } }) =>
    options.logger.warn({ err: error, job: job?.attrs?.name }, 'job failed'),
  );
  return { agenda, close };
}

async function postgresBackend(url: string, logger: Logger): Promise<{ backend: AgendaBackend; close: () => Promise<void> }> {
  // Connections dropped by the server are replaced on next use; never crash on them.
  const pool = resilientPool({ connectionString: url, max: 4 }, (error) => logger.warn({ err: error }, 'job queue pool connection lost'));
  // The backend creates its tables on connect; two instances doing it at once collide, so one at a time.
  const lock = await pool.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    const probe = new PostgresBackend({ pool, disableNotifications: true });
    await probe.connect();
    await probe.disconnect();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [SCHEMA_LOCK]);
    lock.release();
  }
  const backend = new PostgresBackend({ pool, ensureSchema: false });
  withoutJobStateNotifications(backend);
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
 * The PostgreSQL backend's notification channel does two things: a new job wakes every instance's
 * processor (kept), and each job's start, success and completion are sent to every instance (three
 * NOTIFY round trips a job, each parsed again by every listener, this one included) so that
 * `agenda.on('success:…')` fires for another instance's jobs. Nothing here listens for another
 * instance's job events (a failure is logged where the job ran): Agenda publishes job states only
 * through a channel that has `publishState`, so this channel gets none.
 */
function withoutJobStateNotifications(backend: AgendaBackend): void {
  const channel = backend.notificationChannel as { publishState?: unknown } | undefined;
  if (channel) channel.publishState = undefined;
}
