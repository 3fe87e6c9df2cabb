import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import express from 'express';
import helmet from 'helmet';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.js';
import { migrate, openDatabase, resilientPool } from './domain/database.js';
import { ApiKeyService } from './domain/identity/api-key-service.js';
import { IdentityService } from './domain/identity/identity-service.js';
import { OtpService } from './domain/identity/otp-service.js';
import { SessionService } from './domain/identity/session-service.js';
import { McpSessions } from './domain/mcp/sessions.js';
import { McpGrants } from './domain/mcp/grants.js';
import { McpConfirmations } from './domain/mcp/confirmations.js';
import type { Mailer } from './domain/mail/mailer.js';
import { OutboxMailer, SmtpMailer } from './domain/mail/nodemailer-mailer.js';
import { MailQueue } from './domain/mail/mail-queue.js';
import { HousekeepingService } from './domain/maintenance/housekeeping-service.js';
import { IdempotencyStore } from './domain/idempotency/idempotency-store.js';
import { idempotencyPlugin } from './graph/idempotency.js';
import { RecordService, type RecordPage } from './domain/records/record-service.js';
import type { RecordView } from './domain/records/record-view.js';
import { systemClock, type Clock } from './domain/shared/clock.js';
import { RateLimiter } from './domain/shared/rate-limiter.js';
import { ClientLimits } from './domain/shared/client-limits.js';
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
import { SealingResolver } from './graph/resolvers/sealing.resolver.js';
import { SealingService } from './domain/sealing/sealing-service.js';
import { VerificationService, type PublicRecordView, type VerificationView } from './domain/verification/verification-service.js';
import { AnswerCache } from './domain/shared/answer-cache.js';
import { LifecycleService } from './domain/records/lifecycle-service.js';
import { CounterService } from './domain/records/counter-service.js';
import { AmendmentService } from './domain/records/amendment-service.js';
import { BotApiMessengerSender } from './domain/messaging/messenger-sender.js';
import { liveSubscriber, liveUpdates } from './graph/live.js';
import { watchCredentialChanges, watchRecordChanges } from './graph/invalidation.js';
import { CredentialEpoch } from './domain/identity/credential-epoch.js';
import { OutboxDispatcher, type OutboxSubscriber } from './domain/outbox/dispatcher.js';
import { EventJournal } from './domain/outbox/journal.js';
import type { SealContext } from './domain/sealing/seal.js';
import { loadSealKey } from './domain/sealing/seal-key.js';
import { SealArtifacts } from './domain/sealing/artifacts-service.js';
import { threadRenderer } from './domain/sealing/renderer.js';
import { madeOnFirstUse } from './domain/shared/first-use.js';
import { PostgresArtifactStore } from './domain/sealing/artifact-store.js';
import { AnchoringService } from './domain/anchoring/anchoring-service.js';
import type { AnchorChain } from './domain/anchoring/chain.js';
import { anchoringKickSubscriber, defineAnchoringJob, scheduleAnchoring } from './jobs/anchoring.job.js';
import { SealingSweep } from './domain/sealing/sealing-sweep.js';
import { defineSealArtifactsJob, defineSealingSweepJob, scheduleSealingSweep, sealingJobsSubscriber } from './jobs/seal-artifacts.job.js';
import { PostgresPubSub } from './graph/pubsub.js';
import { CeremonyService } from './domain/ceremonies/ceremony-service.js';
import { EmailOtpMethod } from './domain/ceremonies/methods/email-otp.js';
import { ApiKeyMethod } from './domain/ceremonies/methods/api-key.js';
import { proofPostMethods } from './domain/ceremonies/methods/proof-post.js';
import { WebAuthnPasskeyMethod } from './domain/ceremonies/methods/webauthn-passkey.js';
import { MessengerMethod } from './domain/ceremonies/methods/messenger.js';
import { MessengerInbox } from './domain/ceremonies/messenger-inbox.js';
import { InboundResolver } from './graph/resolvers/inbound.resolver.js';
import { buildGraphSchema } from './graph/schema.js';
import { budgetRefusal, checkedDocument, graphArmor, graphqlBudget, refuseDeepDocuments } from './graph/armor.js';
import { ClientBudget } from './graph/transport/client-budget.js';
import { clientAddressResolver, guardedWebSocketServer } from './graph/transport/websocket.js';
import { DEADLINE_MESSAGE, DEADLINE_RETRY_AFTER_SECONDS, requestDeadline } from './graph/transport/deadline.js';
import { sendGraphqlRefusal } from './graph/transport/refusal.js';
import { HEALTH_BODY, metaOperations } from './facade-rest/meta.js';
import { createRestFacade } from './facade-rest/router.js';
import { restError, restErrorHandler, sendRestError } from './facade-rest/errors.js';
import { inboundGuards } from './facade-rest/bindings/index.js';
import type { RestReply } from './facade-rest/operation.js';
import { GraphAuthenticator } from './graph/authenticate.js';
import { apiKeyResolver, connectorTokenResolver, CredentialResolverChain, sessionTokenResolver } from './domain/identity/credential-resolver.js';
import { ConnectorGrants } from './domain/identity/connector-grants.js';
import { OAuthPayloadStore } from './domain/identity/oauth-storage.js';
import { createOAuthServer } from './facade-oauth/router.js';
import { OAUTH_MOUNT } from './facade-oauth/paths.js';
import { quotaHeaders } from './graph/transport/quota-headers.js';
import { connectorAuthenticator, connectorResourceRouter, type ConnectorAuthenticator } from './facade-oauth/resource.js';
import { CONNECTOR_RESOURCE_PATH } from './facade-oauth/metadata.js';
import { createQueue } from './jobs/queue.js';
import { defineHousekeepingJob, scheduleHousekeeping } from './jobs/housekeeping.job.js';
import { defineExpireRecordsJob, scheduleExpireRecords } from './jobs/expire-records.job.js';
import { createLogger, httpLogger, requestIdOf } from './logger.js';
import { webUiRouter } from './web-ui.js';
import { readiness } from './readiness.js';
import { loadServerSecret } from './domain/shared/server-secret.js';
import { claimCommitSubscriber, withClaimSlot } from './domain/idempotency/claim-context.js';
import type { McpFacadeDeps } from './facade-mcp/index.js';
import { mcpOnFirstUse } from './facade-mcp/on-first-use.js';

export type AppOptions = {
  logger?: Logger;
  clock?: Clock;
  mailer?: Mailer;
  /** How often Agenda polls for due jobs; tests poll fast. */
  jobProcessEvery?: string | number;
  /** Node options of the sealing render threads (default: this process's); tests running the sources pass their TypeScript loader. */
  workerExecArgv?: string[];
};

export type App = {
  url: string;
  /** Services tests and tools drive directly (a job's work without its queue). */
  services: {
    sealArtifacts: SealArtifacts;
    dispatcher: OutboxDispatcher;
    housekeeping: HousekeepingService;
    anchoring: AnchoringService | null;
    mail: MailQueue;
    /** The `/mcp/oauth` token check: an Authorization header to a connector principal. */
    connectorAuth: ConnectorAuthenticator;
    /** The in-process GraphQL executor every facade runs the catalog with. */
    graph: GraphExecutor;
  };
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
  const orm = await openDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax, ...config.databaseTimeouts });
  if (config.migrateOnStart) await migrate(orm, config.databaseUrl);

  const transport: Mailer =
    options.mailer ??
    (config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new OutboxMailer(config.mailOutboxDir, config.mailFrom));
  if (!config.smtpUrl && !options.mailer) logger.info({ outbox: config.mailOutboxDir }, 'SMTP_URL not set: mail goes to the local outbox');

  // Domain services: each takes only what it uses.
  const rateLimiter = new RateLimiter(clock);
  const clientLimits = new ClientLimits(orm, rateLimiter, config.clientLimits);
  // Mail goes through the outbox: requests and record locks never wait for a mail server.
  const mailer = new MailQueue(orm, transport, clock, logger, config.mailQueue);
  const serverSecret = await loadServerSecret({ value: config.serverSecret, production: config.env === 'production', localDir: config.localStateDir });
  const otp = new OtpService(orm, mailer, rateLimiter, clock, config.otp, clientLimits, serverSecret);
  const sessions = new SessionService(orm, otp, clock, config.accessTokenTtlSeconds);
  const mcpSessions = new McpSessions(
    orm,
    clock,
    {
      idleSeconds: config.mcp.sessionIdleSeconds,
      unusedSeconds: config.mcp.sessionUnusedSeconds,
      initializePerMinute: config.mcp.initializePerMinute,
      maxSessions: config.mcp.maxSessions,
    },
    rateLimiter,
  );
  const mcpGrants = new McpGrants(orm, otp, clock, config.mcp.grantTtlSeconds);
  const mcpConfirmations = new McpConfirmations(orm, clock, config.mcp.confirmationTtlSeconds);
  const oauthStorage = new OAuthPayloadStore(orm, clock);
  const connectorGrants = new ConnectorGrants(orm, otp, oauthStorage, clock);
  // Identities' listing pages and record reads: dropped on every committed transaction of this
  // instance (so a caller reads what it just wrote) and on every RECORDS_CHANGED notification (any
  // instance, any path).
  const listings = config.caches.listingSeconds > 0
    ? new AnswerCache<RecordPage>({ ttlMs: config.caches.listingSeconds * 1000, maxEntries: 1_000, maxSize: 5_000, sizeOf: (page) => page.records.length })
    : null;
  const recordViews = config.caches.recordSeconds > 0 ? new AnswerCache<RecordView>({ ttlMs: config.caches.recordSeconds * 1000, maxEntries: 10_000 }) : null;
  // The REST listing's answers as sent, per credential and query: kept and dropped with the pages.
  const listingAnswers = listings ? new AnswerCache<RestReply>({ ttlMs: config.caches.listingSeconds * 1000, maxEntries: 1_000 }) : null;
  const dropRecordViews = () => {
    listings?.invalidate();
    listingAnswers?.invalidate();
    recordViews?.invalidate();
  };
  if (listings || recordViews) orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: dropRecordViews });
  // An Idempotency-Key's claim commits with the change its request made (claim-context.ts).
  orm.em.getEventManager().registerSubscriber(claimCommitSubscriber());
  const records = new RecordService(orm, clock, { explorerTxUrl: config.chain?.explorerTxUrl }, { listings, views: recordViews });
  const housekeeping = new HousekeepingService(orm, clock);
  // Idempotency-Key on every mutating REST route and GraphQL mutation, shared by every instance.
  const idempotency = new IdempotencyStore(orm, clock, serverSecret);
  // Subscriptions span every instance on the database: PostgreSQL LISTEN/NOTIFY.
  // A connection the server drops (restart, failover) must not crash the process.
  const pubSubPool = resilientPool({ connectionString: config.databaseUrl, max: 3, connectionTimeoutMillis: 10_000 }, (error) =>
    logger.warn({ err: error }, 'pubsub pool connection lost'),
  );
  const pubSub = new PostgresPubSub(pubSubPool, config.databaseUrl, logger);
  await pubSub.start();
  // Every transport resolves credentials through this one chain (OAuth and MCP resolvers join it later).
  // Answers are reused briefly; a revocation or merge drops them on every instance (LISTEN/NOTIFY).
  // A revocation advances the credential epoch before its answer leaves; a reused answer is checked against it.
  const credentialEpoch = new CredentialEpoch(orm);
  const principalCache = config.caches.principalSeconds > 0 ? { ttlMs: config.caches.principalSeconds * 1000, clock, epoch: credentialEpoch } : null;
  const credentialChain = new CredentialResolverChain([sessionTokenResolver(orm, clock), apiKeyResolver(orm, clock)], principalCache);
  // Live graphql-ws sockets check their credentials again on every revocation or merge (set below).
  let credentialsChanged = (): void => undefined;
  const credentials = watchCredentialChanges(
    pubSub,
    () => {
      credentialChain.invalidate();
      credentialsChanged();
    },
    () => credentialEpoch.advance(),
  );
  const authenticator = new GraphAuthenticator(credentialChain);
  const identities = new IdentityService(orm, otp, clock, credentials.changed);
  const apiKeys = new ApiKeyService(orm, clock, credentials.changed);
  // Domain events: journaled in each change's transaction, delivered after the commit by the outbox dispatcher.
  const outboxSubscribers: OutboxSubscriber[] = [liveSubscriber(pubSub)];
  const dispatcher = new OutboxDispatcher(pubSubPool, outboxSubscribers, logger, { pollMs: config.outboxPollMs });
  // Cards and sealed PDFs are drawn and signed on render threads (started on first use, stopped when idle).
  const renderer = threadRenderer(config.sealing.workers, { execArgv: options.workerExecArgv });
  // The seal key is checked now, never at the first seal: a production start without one fails here.
  // A render thread opens it: this thread never loads the signing library.
  const sealKey = await loadSealKey({
    p12Path: config.sealing.p12Path,
    p12Password: config.sealing.p12Password,
    production: config.env === 'production',
    localDir: config.localStateDir,
    serviceName: 'Record Signing',
    certificateOf: (p12, password) => renderer.certificate(p12, password),
  }).catch(async (error: unknown) => {
    await renderer.close();
    throw error;
  });
  const sealContext: SealContext = { sealCertificateSha256: sealKey.fingerprint.replace(/^sha256:/, ''), anchor: null, publicBaseUrl: config.publicBaseUrl };
  // The chain, connected lazily (an outage at start only delays anchoring); seals name it once known.
  const chain = config.chain ? lazyChain(config.chain, config.localStateDir, (c) => (sealContext.anchor = { network: c.networkName(), chainId: c.chainId, registryAddress: c.registryAddress })) : null;
  if (chain) await chain().catch((error: unknown) => logger.warn({ err: error }, 'chain unreachable at start; anchoring will retry'));
  else logger.info('CHAIN_RPC_URL not set: seals are not anchored');
  // Sealed records' public answers: dropped when this instance commits events, and when any instance's
  // events or committed writes to record tables are notified (both caches of record views).
  const publicAnswers = config.caches.publicAnswerSeconds > 0 ? new AnswerCache<PublicRecordView | VerificationView>({ ttlMs: config.caches.publicAnswerSeconds * 1000, maxEntries: 10_000 }) : null;
  const stopWatchingActivity = publicAnswers || listings || recordViews
    ? watchRecordChanges(pubSub, () => {
        publicAnswers?.invalidate();
        dropRecordViews();
      })
    : async () => undefined;
  // Events that notifying alone delivers go out with their change's commit; the dispatcher is woken
  // only when a committed transaction left it events (a seal's jobs).
  const domainEvents = new EventJournal(sealContext, () => publicAnswers?.invalidate(), { subscribers: outboxSubscribers, wake: () => dispatcher.wake() });
  orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: ({ em }) => domainEvents.afterCommit(em) });
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
  const artifactStore = new PostgresArtifactStore();
  const anchoring = chain
    ? new AnchoringService(orm, chain, domainEvents, clock, logger, { batchMax: config.chain!.batchMax, retryMaxSeconds: config.chain!.retryMaxSeconds })
    : null;
  // Cards and PDFs render on SEAL_WORKERS threads, never on the thread that answers the API.
  const sealArtifacts = new SealArtifacts(orm, artifactStore, sealKey, domainEvents, clock, { tsaUrls: config.sealing.tsaUrls, serviceName: 'Record Signing' }, renderer);

  const resolvers = {
    auth: new AuthResolver(otp, sessions, mcpGrants),
    identity: new IdentityResolver(identities, apiKeys, connectorGrants),
    records: new RecordResolver(records),
    ceremonies: new CeremonyResolver(ceremonies, records),
    identicons: new IdenticonResolver(),
    inbound: new InboundResolver(messengerInbox),
    lifecycle: new LifecycleResolver(lifecycle, records, counters, amendments),
    notarizations: new NotarizationResolver(
      new NotarizationService(orm, clock, {
        events: domainEvents,
        sign: (principal, recordId, within) => ceremonies.autoSeal(principal, recordId, within),
        submit: (principal, recordId, within) => lifecycle.submit(principal, recordId, within),
      }),
      ceremonies,
      records,
    ),
    verification: new VerificationResolver(new VerificationService(orm, clientLimits, chain, { explorerTxUrl: config.chain?.explorerTxUrl }, publicAnswers)),
    sealing: new SealingResolver(
      new SealingService(orm, artifactStore, sealArtifacts, clock, { publicBaseUrl: config.publicBaseUrl, cardTicketTtlSeconds: config.sealing.cardTicketTtlSeconds }),
    ),
  };
  const schema = await buildGraphSchema(resolvers, { pubSub });

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  // No automatic ETag: API answers are private and change with every move (hashing each JSON body
  // cost ~2% of a record read); files set their own strong ETag, static assets theirs.
  app.set('etag', false);
  // Helmet's headers do not depend on the request: computed once, set as a block.
  const securityHeaders = constantHeaders(helmet());
  // Liveness first: balancers call it often and it reads nothing, so `GET /health` is answered by the
  // HTTP server itself, before express (below): constant bytes, the security headers and the request
  // id, no request log (same answer as the contract's getHealth; other methods on /health still get
  // the REST facade's 405).
  const health = Buffer.from(JSON.stringify(HEALTH_BODY));
  const healthHeaders = { ...Object.fromEntries(securityHeaders), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(health.length) };
  const answerHealth = (req: IncomingMessage, res: ServerResponse) => void res.setHeader('X-Request-Id', requestIdOf(req)).writeHead(200, healthHeaders).end(health);
  app.use((_req, res, next) => {
    res.setHeaders(securityHeaders);
    next();
  });
  app.use(httpLogger(logger));
  // A request unanswered at its deadline gets 503 `unavailable`, in its route's own error shape.
  const late = { retryAfterSeconds: DEADLINE_RETRY_AFTER_SECONDS };
  app.use('/api/v1', requestDeadline(config.requestTimeoutSeconds, (res) => sendRestError(res, restError('unavailable', DEADLINE_MESSAGE, late))));
  app.use('/graphql', requestDeadline(config.requestTimeoutSeconds, (res) => sendGraphqlRefusal(res, 503, DEADLINE_MESSAGE, { code: 'unavailable', ...late })));
  // The routes an anonymous caller reaches answer with the client's quota (RateLimit header fields).
  app.use(['/graphql', '/api/v1/verification', '/api/v1/public', OAUTH_MOUNT], quotaHeaders());
  const server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/health' || req.url?.startsWith('/health?'))) answerHealth(req, res);
    else app(req, res);
  });

  const armor = graphArmor<GraphContext>({ introspection: config.graphqlIntrospection });
  // GraphQL operations per client address and minute, over HTTP and graphql-ws together (this instance's CPU).
  const graphqlOperations = new ClientBudget(config.graphqlOperationsPerMinute);
  const ws = guardedWebSocketServer(server, '/graphql', config.websocket, clientAddressResolver(app.get('trust proxy fn') as (address: string, hop: number) => boolean), logger);
  const formatError = formatGraphError(logger);
  const wsCleanup = useServer<Record<string, unknown>>(
    {
      schema,
      connectionInitWaitTimeout: config.websocket.initTimeoutMs,
      // The same limits as over HTTP, in the same order: nesting before parsing, tokens while parsing,
      // then depth, aliases, directives, cost and introspection; refusals carry the same codes.
      onSubscribe: (ctx, _id, payload) => {
        const { admitted, quota } = graphqlOperations.take(ws.clientAddressOf(ctx.extra.request));
        return admitted ? checkedDocument(schema, payload, armor) : [budgetRefusal(quota.resetSeconds)];
      },
      // The same error model as over HTTP: domain codes in extensions.code, nothing unexpected leaks.
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error.toJSON(), error)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((error) => formatError(error.toJSON(), error)) } : undefined,
      // Presented but invalid credentials close the connection (4403) before any operation runs;
      // each operation then authenticates again, so a revoked key stops working mid-connection too.
      onConnect: async (ctx) => {
        try {
          await authenticator.fromConnectionParams(ctx.connectionParams ?? {});
        } catch (error) {
          if (error instanceof GraphQLError) return false;
          throw error;
        }
        const params = ctx.connectionParams ?? {};
        const presented = Object.keys(params).length > 0;
        const stillValid = async () => (await authenticator.fromConnectionParams(params).then((principal) => principal !== null, () => false));
        ws.watchOperations(ctx.extra.socket, () => Object.keys(ctx.subscriptions).length, presented ? stillValid : null);
        return true;
      },
      context: async (ctx) => ({
        principal: await authenticator.fromConnectionParams(ctx.connectionParams ?? {}),
        via: 'graphql' as const,
        requestId: randomUUID(),
        clientAddress: ws.clientAddressOf(ctx.extra.request),
        live,
      }),
    },
    ws.wss,
  );
  ws.takeOverSocketErrors();
  credentialsChanged = () => void ws.recheckCredentials();

  const apollo = new ApolloServer<GraphContext>({
    schema,
    formatError,
    includeStacktraceInErrorResponses: false,
    introspection: config.graphqlIntrospection,
    validationRules: armor.validationRules,
    parseOptions: armor.parseOptions,
    plugins: [
      ...armor.plugins,
      idempotencyPlugin(idempotency, logger),
      ApolloServerPluginDrainHttpServer({ httpServer: server }),
      // No HTTP cache hints are used (every answer is private to its caller): skip the per-field bookkeeping.
      ApolloServerPluginCacheControlDisabled(),
      // Not a federated subgraph: no traces to inline, and Apollo's protobuf code (some 360 KB) stays unloaded.
      ApolloServerPluginInlineTraceDisabled(),
      { async serverWillStart() { return { async drainServer() { ws.close(); await wsCleanup.dispose(); } }; } },
    ],
  });
  await apollo.start();

  app.use(
    '/graphql',
    // A place for the Idempotency-Key claim the plugin makes once the document is parsed (claim-context.ts).
    (_req, _res, next) => withClaimSlot(next),
    graphqlBudget(graphqlOperations),
    express.json({ limit: '256kb' }),
    refuseDeepDocuments,
    expressMiddleware(apollo, {
      context: async ({ req }) => ({
        principal: await authenticator.fromHeaders(req.headers),
        via: 'graphql' as const,
        requestId: typeof req.id === 'string' ? req.id : randomUUID(),
        clientAddress: req.ip ?? null,
      }),
    }),
  );
  // Hosted assistant connectors: the OAuth authorization server (metadata, /oauth/*, the consent
  // page) and /mcp/oauth, whose chain holds only the connector resolver (and no other chain holds it).
  const oauthServer = createOAuthServer({
    publicBaseUrl: config.publicBaseUrl,
    consentTtlSeconds: config.oauth.consentTtlSeconds,
    storage: oauthStorage,
    grants: connectorGrants,
    clientLimits,
    logger,
  });
  const connectorAuth = connectorAuthenticator(
    new CredentialResolverChain([connectorTokenResolver(oauthServer.lookupAccessToken, connectorGrants, oauthServer.resource)]),
  );
  const executor = new GraphExecutor(schema, formatError);
  const ready = readiness(config.databaseUrl, () => pubSub.listening);
  // MCP: the transport's bearer is an API key or a manual MCP token (accepted nowhere else); without one, the session's grant.
  const mcpCredentialChain = new CredentialResolverChain([mcpGrants.tokenResolver(), apiKeyResolver(orm, clock)]);
  const boundPort = () => (server.address() as AddressInfo | null)?.port ?? config.port;
  const publicBase = new URL(config.publicBaseUrl);
  const mcpDeps: McpFacadeDeps = {
    executor,
    sessions: mcpSessions,
    confirmations: mcpConfirmations,
    authenticate: (credentials) => mcpCredentialChain.authenticate(credentials),
    sessionPrincipal: (sessionKey) => mcpGrants.forSession(sessionKey),
    allowedHosts: () => config.mcp.allowedHosts ?? [publicBase.hostname, 'localhost', '127.0.0.1', '[::1]'],
    allowedOrigins: () =>
      config.mcp.allowedOrigins ?? [publicBase.origin, ...['localhost', '127.0.0.1', '[::1]'].map((host) => `http://${host}:${boundPort()}`)],
    jsonResponse: config.mcp.jsonResponse,
    logger,
  };
  const mcp = mcpOnFirstUse(mcpDeps);
  app.use(oauthServer.router);
  // /mcp/oauth: the OAuth token check first (401 + resource metadata before any message), then the same MCP tools as /mcp.
  app.use(
    connectorResourceRouter({
      path: CONNECTOR_RESOURCE_PATH,
      resourceMetadataUrl: oauthServer.resourceMetadataUrl,
      authenticate: connectorAuth,
      handler: mcp.authenticatedHandler,
    }),
  );
  // The web UI answers only its own pages and assets; the REST facade below takes every other path.
  app.use(webUiRouter());
  app.use(mcp.router);
  app.use(
    await createRestFacade({
      executor,
      authenticate: (credentials) => credentialChain.authenticate(credentials),
      meta: metaOperations({ readiness: () => ready.check(), mcpDiagnostics: () => mcp.diagnostics({ authModes: ['public', 'api_key', 'mcp_otp', 'mcp_transport_token', 'oauth'] }) }),
      guards: inboundGuards({ messenger: messengerInbox }),
      idempotency,
      listingAnswers,
      logger,
    }),
  );
  app.use(restErrorHandler(logger));

  let agenda: Agenda | null = null;
  let closeQueue: () => Promise<void> = async () => undefined;
  if (config.jobsEnabled) {
    const queue = await createQueue({
      databaseUrl: config.databaseUrl,
      mongodbUrl: config.mongodbUrl,
      logger,
      pubSub,
      lockLifetimeMs: config.jobLockSeconds * 1000,
      processEvery: options.jobProcessEvery,
    });
    agenda = queue.agenda;
    closeQueue = queue.close;
    defineHousekeepingJob(agenda, housekeeping, logger);
    defineExpireRecordsJob(agenda, lifecycle, logger);
    defineSealArtifactsJob(agenda, sealArtifacts, logger, config.sealing.workers);
    defineSealingSweepJob(agenda, new SealingSweep(orm, clock), logger);
    outboxSubscribers.push(sealingJobsSubscriber(agenda));
    if (anchoring) {
      defineAnchoringJob(agenda, anchoring, logger);
      outboxSubscribers.push(anchoringKickSubscriber(anchoring, logger));
    }
    await agenda.start();
    await scheduleHousekeeping(agenda);
    await scheduleExpireRecords(agenda);
    await scheduleSealingSweep(agenda);
    if (anchoring) await scheduleAnchoring(agenda);
  }
  dispatcher.start();
  mailer.start();

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  logger.info({ url }, 'record signing service listening');

  return {
    url,
    services: { sealArtifacts, dispatcher, housekeeping, anchoring, mail: mailer, connectorAuth, graph: executor },
    server,
    orm,
    agenda,
    logger,
    stop: async () => {
      // Each step is bounded: a pool holding a connection that died mid-query must not keep the process from stopping.
      const step = (name: string, run: () => Promise<unknown>) => settleWithin(name, run, STOP_STEP_MS, logger);
      await step('outbox dispatcher', () => dispatcher.stop());
      const queue = agenda;
      if (queue) await step('job queue', () => queue.stop());
      await step('job queue pool', closeQueue);
      await step('graphql', () => apollo.stop());
      await step('http server', () => new Promise<void>((resolve) => server.close(() => resolve())));
      await step('mail worker', async () => mailer.close?.());
      await step('render threads', () => renderer.close());
      await step('activity watch', stopWatchingActivity);
      await step('credential watch', credentials.stop);
      await step('pubsub', () => pubSub.close());
      await step('pubsub pool', () => pubSubPool.end());
      await step('readiness probe', () => ready.close());
      await step('database', () => orm.close());
    },
  };
}

const STOP_STEP_MS = 10_000;

/** Runs one shutdown step; one that fails or takes longer than `ms` is logged and left behind. */
async function settleWithin(name: string, run: () => Promise<unknown>, ms: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms).unref()));
  try {
    const outcome = await Promise.race([run().then(() => 'done' as const), late]);
    if (outcome === 'late') logger.warn({ step: name, afterMs: ms }, 'shutdown step did not finish in time; stopping without it');
  } catch (error) {
    logger.warn({ err: error, step: name }, 'shutdown step failed');
  } finally {
    clearTimeout(timer);
  }
}

/** The configured chain, connected on first use and again after a failed attempt. */
function lazyChain(settings: NonNullable<Config['chain']>, localStateDir: string, connected: (chain: AnchorChain) => void): () => Promise<AnchorChain> {
  // The chain's code (ox) is loaded with the first connection: a service without a chain never loads it.
  return madeOnFirstUse(async () => {
    const { DEVELOPMENT_SIGNER_KEY, EvmAnchorChain } = await import('./domain/anchoring/evm-chain.js');
    const chain = await EvmAnchorChain.connect({
      rpcUrl: settings.rpcUrl,
      // The well-known development key is refused by the adapter on any chain but the development one.
      signerKey: settings.signerKey ?? DEVELOPMENT_SIGNER_KEY,
      registryAddress: settings.registryAddress,
      confirmations: settings.confirmations,
      deployIfMissing: !settings.registryAddress,
      addressFile: path.join(localStateDir, 'chain', 'registry.json'),
      networkName: settings.networkName,
    });
    connected(chain);
    return chain;
  });
}

/**
 * The headers a middleware that sets the same headers on every response would set (helmet): run
 * once against a recording response, so that each request sets them in one call.
 */
function constantHeaders(middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void): Map<string, string> {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => void headers.set(name, String(value)),
    removeHeader: (name: string) => void headers.delete(name),
  };
  let called = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, () => void (called = true));
  if (!called) throw new Error('constantHeaders: the middleware did not finish synchronously');
  return headers;
}
