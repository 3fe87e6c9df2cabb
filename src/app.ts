import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError } from 'graphql';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.js';
import { migrate, openDatabase } from './domain/database.js';
import { ApiKeyService } from './domain/identity/api-key-service.js';
import { IdentityService } from './domain/identity/identity-service.js';
import { OtpService } from './domain/identity/otp-service.js';
import type { Principal } from './domain/identity/principal.js';
import { SessionService } from './domain/identity/session-service.js';
import type { Mailer } from './domain/mail/mailer.js';
import { OutboxMailer, SmtpMailer } from './domain/mail/nodemailer-mailer.js';
import { HousekeepingService } from './domain/maintenance/housekeeping-service.js';
import { RecordService } from './domain/records/record-service.js';
import { systemClock, type Clock } from './domain/shared/clock.js';
import { DomainError } from './domain/shared/errors.js';
import { RateLimiter } from './domain/shared/rate-limiter.js';
import type { GraphContext } from './graph/context.js';
import { formatGraphError } from './graph/errors.js';
import { GraphExecutor } from './graph/executor.js';
import { AuthResolver } from './graph/resolvers/auth.resolver.js';
import { IdentityResolver } from './graph/resolvers/identity.resolver.js';
import { RecordResolver } from './graph/resolvers/record.resolver.js';
import { CeremonyResolver, IdenticonResolver } from './graph/resolvers/ceremony.resolver.js';
import { LifecycleResolver } from './graph/resolvers/lifecycle.resolver.js';
import { NotarizationResolver } from './graph/resolvers/notarization.resolver.js';
import { NotarizationService } from './domain/notarizations/notarization-service.js';
import { VerificationResolver } from './graph/resolvers/verification.resolver.js';
import { VerificationService } from './domain/verification/verification-service.js';
import { LifecycleService } from './domain/records/lifecycle-service.js';
import { CounterService } from './domain/records/counter-service.js';
import { AmendmentService } from './domain/records/amendment-service.js';
import { BotApiMessengerSender } from './domain/messaging/messenger-sender.js';
import { liveUpdates, publishDomainEvents } from './graph/live.js';
import { PostgresPubSub } from './graph/pubsub.js';
import { CeremonyService } from './domain/ceremonies/ceremony-service.js';
import { EmailOtpMethod } from './domain/ceremonies/methods/email-otp.js';
import { ApiKeyMethod } from './domain/ceremonies/methods/api-key.js';
import { proofPostMethods } from './domain/ceremonies/methods/proof-post.js';
import { WebAuthnPasskeyMethod } from './domain/ceremonies/methods/webauthn-passkey.js';
import { MessengerMethod } from './domain/ceremonies/methods/messenger.js';
import { MessengerInbox } from './domain/ceremonies/messenger-inbox.js';
import { InboundResolver } from './graph/resolvers/inbound.resolver.js';
import pg from 'pg';
import { buildGraphSchema } from './graph/schema.js';
import { metaOperations } from './facade-rest/meta.js';
import { createRestFacade, readCredentials } from './facade-rest/router.js';
import { createQueue } from './jobs/queue.js';
import { defineHousekeepingJob, scheduleHousekeeping } from './jobs/housekeeping.job.js';
import { defineExpireRecordsJob, scheduleExpireRecords } from './jobs/expire-records.job.js';
import { createLogger, httpLogger } from './logger.js';

export type AppOptions = {
  logger?: Logger;
  clock?: Clock;
  mailer?: Mailer;
  /** Agenda lock lifetime; tests keep it short so that stopping is quick. */
  jobLockLifetimeMs?: number;
  /** How often Agenda polls for due jobs; tests poll fast. */
  jobProcessEvery?: string | number;
};

export type App = {
  url: string;
  server: Server;
  orm: MikroORM;
  agenda: Agenda | null;
  logger: Logger;
  stop: () => Promise<void>;
};

/** The composition root: config -> database -> services -> schema -> servers -> jobs. */
export async function startApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const orm = await openDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax });
  if (config.migrateOnStart) await migrate(orm, config.databaseUrl);

  const mailer: Mailer =
    options.mailer ??
    (config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new OutboxMailer(config.mailOutboxDir, config.mailFrom));
  if (!config.smtpUrl && !options.mailer) logger.info({ outbox: config.mailOutboxDir }, 'SMTP_URL not set: mail goes to the local outbox');

  // Domain services: each takes only what it uses.
  const rateLimiter = new RateLimiter(clock);
  const otp = new OtpService(orm, mailer, rateLimiter, clock, config.otp);
  const sessions = new SessionService(orm, otp, clock, config.accessTokenTtlSeconds);
  const identities = new IdentityService(orm, otp, clock);
  const apiKeys = new ApiKeyService(orm, clock);
  const records = new RecordService(orm, clock);
  const housekeeping = new HousekeepingService(orm, clock);
  // Subscriptions span every instance on the database: PostgreSQL LISTEN/NOTIFY.
  const pubSubPool = new pg.Pool({ connectionString: config.databaseUrl, max: 2 });
  // An idle connection the server drops (restart, failover) must not crash the process.
  pubSubPool.on('error', (error) => logger.warn({ err: error }, 'pubsub pool connection lost'));
  const pubSub = new PostgresPubSub(pubSubPool, config.databaseUrl, logger);
  await pubSub.start();
  const domainEvents = publishDomainEvents(pubSub);
  // One adapter per signature method; the order is the contract's.
  const methods = [
    new EmailOtpMethod(otp),
    ...proofPostMethods(config.proofPosts, rateLimiter),
    new WebAuthnPasskeyMethod(config.webauthn),
    new MessengerMethod(config.messenger),
    new ApiKeyMethod(),
  ];
  const startLimit = { limit: config.methodStartsPerWindow, windowSeconds: 600 };
  const ceremonies = new CeremonyService(orm, clock, methods, domainEvents, rateLimiter, startLimit);
  const messengerInbox = new MessengerInbox(orm, ceremonies, clock, config.messenger.webhookSecret, logger);
  if (!config.messenger.webhookSecret) logger.info('MESSENGER_WEBHOOK_SECRET not set: the messenger webhook refuses every update');
  const messengerSender = config.messenger.botToken ? new BotApiMessengerSender(config.messenger.apiBase, config.messenger.botToken) : null;
  const lifecycleSettings = {
    publicBaseUrl: config.publicBaseUrl,
    defaultLapseDays: config.defaultLapseDays,
    resendsPerHour: config.invitationResendsPerHour,
  };
  const lifecycle = new LifecycleService(orm, clock, mailer, domainEvents, rateLimiter, lifecycleSettings, messengerSender, logger);
  const counters = new CounterService(orm, clock, domainEvents);
  const amendments = new AmendmentService(orm, clock, domainEvents);
  const live = liveUpdates(pubSub, records);

  const resolvers = {
    auth: new AuthResolver(otp, sessions),
    identity: new IdentityResolver(identities, apiKeys),
    records: new RecordResolver(records),
    ceremonies: new CeremonyResolver(ceremonies, records),
    identicons: new IdenticonResolver(),
    inbound: new InboundResolver(messengerInbox),
    lifecycle: new LifecycleResolver(lifecycle, records, counters, amendments),
    notarizations: new NotarizationResolver(new NotarizationService(orm, clock), ceremonies, lifecycle, records),
    verification: new VerificationResolver(new VerificationService(orm)),
  };
  const schema = await buildGraphSchema(resolvers, { pubSub });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.use(httpLogger(logger));
  const server = createServer(app);

  const wsServer = new WebSocketServer({ server, path: '/graphql' });
  const formatError = formatGraphError(logger);
  const wsCleanup = useServer<Record<string, unknown>>(
    {
      schema,
      // The same error model as over HTTP: domain codes in extensions.code, nothing unexpected leaks.
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error.toJSON(), error)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((error) => formatError(error.toJSON(), error)) } : undefined,
      // Presented but invalid credentials close the connection (4403) before any operation runs;
      // each operation then authenticates again, so a revoked key stops working mid-connection too.
      onConnect: async (ctx) => {
        try {
          await principalFromParams(sessions, ctx.connectionParams ?? {});
          return true;
        } catch (error) {
          if (error instanceof GraphQLError) return false;
          throw error;
        }
      },
      context: async (ctx) => ({
        principal: await principalFromParams(sessions, ctx.connectionParams ?? {}),
        via: 'graphql' as const,
        requestId: randomUUID(),
        live,
      }),
    },
    wsServer,
  );

  const apollo = new ApolloServer<GraphContext>({
    schema,
    formatError,
    includeStacktraceInErrorResponses: false,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer: server }),
      // No HTTP cache hints are used (every answer is private to its caller): skip the per-field bookkeeping.
      ApolloServerPluginCacheControlDisabled(),
      { async serverWillStart() { return { async drainServer() { await wsCleanup.dispose(); } }; } },
    ],
  });
  await apollo.start();

  app.use(
    '/graphql',
    express.json({ limit: '256kb' }),
    expressMiddleware(apollo, {
      context: async ({ req }) => ({
        principal: await principalOrGraphError(sessions, readCredentials(req)),
        via: 'graphql' as const,
        requestId: typeof req.id === 'string' ? req.id : randomUUID(),
      }),
    }),
  );
  const executor = new GraphExecutor(apollo);
  app.use(
    await createRestFacade({
      executor,
      authenticate: (credentials) => sessions.authenticate(credentials),
      meta: metaOperations({ orm }),
      logger,
    }),
  );
  app.use(jsonErrorHandler(logger));

  let agenda: Agenda | null = null;
  let closeQueue: () => Promise<void> = async () => undefined;
  if (config.jobsEnabled) {
    const queue = await createQueue({
      databaseUrl: config.databaseUrl,
      mongodbUrl: config.mongodbUrl,
      logger,
      lockLifetimeMs: options.jobLockLifetimeMs,
      processEvery: options.jobProcessEvery,
    });
    agenda = queue.agenda;
    closeQueue = queue.close;
    defineHousekeepingJob(agenda, housekeeping, logger);
    defineExpireRecordsJob(agenda, lifecycle, logger);
    await agenda.start();
    await scheduleHousekeeping(agenda);
    await scheduleExpireRecords(agenda);
  }

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  logger.info({ url }, 'record signing service listening');

  return {
    url,
    server,
    orm,
    agenda,
    logger,
    stop: async () => {
      if (agenda) await agenda.stop();
      await closeQueue();
      await apollo.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mailer.close?.();
      await pubSub.close();
      await pubSubPool.end();
      await orm.close();
    },
  };
}

async function principalOrGraphError(
  sessions: SessionService,
  credentials: { bearer?: string; apiKey?: string },
): Promise<Principal | null> {
  try {
    return await sessions.authenticate(credentials);
  } catch (error) {
    if (error instanceof DomainError) {
      throw new GraphQLError(error.message, { extensions: { code: error.code, http: { status: 401 } } });
    }
    throw error;
  }
}

/** graphql-ws clients send credentials in connection params: `{ authorization: 'Bearer …' }` or `{ 'x-api-key': … }`. */
async function principalFromParams(sessions: SessionService, params: Record<string, unknown>): Promise<Principal | null> {
  const headers: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(params)) if (typeof value === 'string') headers[key.toLowerCase()] = value;
  return principalOrGraphError(sessions, readCredentials({ headers }));
}

/** Body-parser failures (malformed JSON, too large) in the REST error shape; never a stack trace. */
function jsonErrorHandler(logger: Logger): express.ErrorRequestHandler {
  return (error: { type?: string; status?: number }, _req, res, _next) => {
    if (error.type === 'entity.parse.failed') {
      res.status(400).json({ detail: 'Malformed JSON body', error_code: 'malformed_request' });
    } else if (error.type === 'entity.too.large') {
      res.status(413).json({ detail: 'Request body too large', error_code: 'payload_too_large' });
    } else {
      logger.error({ err: error }, 'unhandled request error');
      res.status(500).json({ detail: 'Internal server error', error_code: 'internal_error' });
    }
  };
}
