import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { AccessToken, ApiKey, ContactPoint, Identity, RateLimitWindow, VerificationEvent } from './identity/entities.js';
import { CounterProposal, Participant, SignedRecord } from './records/entities.js';
import { MessengerChat, MessengerUpdate, PasskeyCredential, SignatureExecution, SignatureMethod } from './ceremonies/entities.js';
import { migrationsList } from './migrations/index.js';

export const entities = [
  Identity,
  ContactPoint,
  VerificationEvent,
  AccessToken,
  ApiKey,
  RateLimitWindow,
  SignedRecord,
  Participant,
  CounterProposal,
  SignatureExecution,
  SignatureMethod,
  PasskeyCredential,
  MessengerUpdate,
  MessengerChat,
];

export type DatabaseOptions = {
  url: string;
  poolMax?: number;
  /** Emit MikroORM's query log at debug level through this function. */
  debugLog?: (message: string) => void;
};

export function ormConfig(options: DatabaseOptions): Options {
  return defineConfig({
    clientUrl: options.url,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    pool: { max: options.poolMax ?? 10 },
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

export async function openDatabase(options: DatabaseOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

const MIGRATION_LOCK = 7204121;

/**
 * Applies pending migrations. Several instances may start at once on one database: a session-level
 * advisory lock on a dedicated connection lets one migrate while the others wait.
 */
export async function migrate(orm: MikroORM, url: string): Promise<void> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}
