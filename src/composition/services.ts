/**
 * The domain and its GraphQL schema, composed: every service with only what it uses, the credential
 * chain, the outbox, the seal key and the chain, the read caches (read-caches.ts). The transports
 * (composition/http.ts, graphql.ts, connectors.ts) and the jobs (jobs.ts) are mounted on what this
 * returns.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { resilientPool } from '../infrastructure/database.js';
import { ApiKeyService } from '../domain/identity/api-key-service.js';
import { IdentityService } from '../domain/identity/identity-service.js';
import { OtpService } from '../domain/identity/otp-service.js';
import { SessionService } from '../domain/identity/session-service.js';
import { McpSessions } from '../infrastructure/mcp/sessions.js';
import { McpEvents } from '../infrastructure/mcp/events.js';
import { McpGrants } from '../domain/mcp/grants.js';
import { McpConfirmations } from '../domain/mcp/confirmations.js';
import type { Mailer } from '../domain/mail/mailer.js';
import { OutboxMailer, SmtpMailer } from '../infrastructure/mail/nodemailer-mailer.js';
import { WEBHOOKS_DUE, webhookFanout } from '../domain/webhooks/fanout.js';
import { WebhookSender } from '../domain/webhooks/sender.js';
import { WebhookService } from '../domain/webhooks/webhook-service.js';
import { WebhookSecrets } from '../domain/webhooks/signature.js';
import { WebhookTargets } from '../domain/webhooks/target.js';
import { SecretInputResolver } from '../graph/resolvers/secret-input.resolver.js';
import { SecretInputs } from '../domain/mcp/secret-inputs.js';
import { WebhookResolver } from '../graph/resolvers/webhook.resolver.js';
import { TeamResolver } from '../graph/resolvers/team.resolver.js';
import { TeamService } from '../domain/teams/team-service.js';
import { TemplateResolver } from '../graph/resolvers/template.resolver.js';
import { TemplateService } from '../domain/templates/template-service.js';
import { BulkSendService } from '../domain/bulk-sends/bulk-send-service.js';
import { BulkSendResolver } from '../graph/resolvers/bulk-send.resolver.js';
import { BULK_SEND_PROGRESS, bulkSendProgress } from '../graph/bulk-send-live.js';
import { ExportResolver } from '../graph/resolvers/export.resolver.js';
import { ExportService } from '../domain/exports/export-service.js';
import { MailQueue } from '../domain/mail/mail-queue.js';
import { HousekeepingService } from '../domain/maintenance/housekeeping-service.js';
import { StuckWork } from '../domain/maintenance/stuck-work.js';
import { StuckWorkWarnings } from '../domain/maintenance/stuck-work-warnings.js';
import { IdempotencyStore } from '../domain/idempotency/idempotency-store.js';
import { RecordService } from '../domain/records/record-service.js';
import type { Clock } from '../domain/shared/clock.js';
import { RateLimiter } from '../domain/shared/rate-limiter.js';
import { ClientLimits } from '../domain/shared/client-limits.js';
import { AuthResolver } from '../graph/resolvers/identity-auth.resolver.js';
import { IdentityResolver } from '../graph/resolvers/identity.resolver.js';
import { RecordResolver } from '../graph/resolvers/record.resolver.js';
import { CeremonyResolver, IdenticonResolver } from '../graph/resolvers/ceremony.resolver.js';
import { LifecycleResolver } from '../graph/resolvers/lifecycle.resolver.js';
import { NotarizationResolver } from '../graph/resolvers/notarization.resolver.js';
import { NotarizationService } from '../domain/notarizations/notarization-service.js';
import { VerificationResolver } from '../graph/resolvers/verification.resolver.js';
import { ArtifactsResolver } from '../graph/resolvers/artifacts.resolver.js';
import { SealingService } from '../domain/sealing/sealing-service.js';
import { VerificationService } from '../domain/verification/verification-service.js';
import { LifecycleService } from '../domain/records/lifecycle-service.js';
import { Invitations } from '../domain/records/invitations.js';
import { Reminders } from '../domain/records/reminders.js';
import { CounterService } from '../domain/records/counter-service.js';
import { AmendmentService } from '../domain/records/amendment-service.js';
import { BotApiMessengerSender } from '../domain/messaging/messenger-sender.js';
import { MessengerQueue } from '../domain/messaging/messenger-queue.js';
import { liveSubscriber, liveUpdates, TEAM_ACCESS_CHANGED } from '../graph/live.js';
import type { LiveUpdates } from '../graph/context.js';
import { EventCursors } from '../graph/event-cursors.js';
import { missedOutboxEvents } from '../domain/outbox/replay.js';
import { watchCredentialChanges } from '../graph/invalidation.js';
import { CredentialEpoch } from '../domain/identity/credential-epoch.js';
import { OutboxDispatcher, type OutboxSubscriber } from '../domain/outbox/dispatcher.js';
import { EventJournal } from '../domain/outbox/journal.js';
import type { SealContext } from '../domain/sealing/seal.js';
import { loadSealKey } from '../domain/sealing/seal-key.js';
import { SealArtifacts } from '../domain/sealing/artifacts-service.js';
import { threadRenderer, tracedRenderer } from '../domain/sealing/renderer.js';
import { ArchiveRenewal } from '../domain/sealing/archive-renewal.js';
import { SealCompletion } from '../domain/sealing/seal-completion.js';
import { noTracing, type Tracing } from '../domain/shared/tracing.js';
import { noInstruments, type Instruments } from '../domain/shared/instruments.js';
import { OutboxEvent } from '../domain/outbox/entities.js';
import { madeOnFirstUse } from '../domain/shared/first-use.js';
import { PostgresArtifactStore } from '../domain/sealing/artifact-store.js';
import { AnchoringService } from '../domain/anchoring/anchoring-service.js';
import type { AnchorChain } from '../../packages/verifier/src/anchoring/chain.js';
import { PostgresPubSub } from '../graph/pubsub.js';
import { CeremonyService } from '../domain/ceremonies/ceremony-service.js';
import { EmailOtpMethod } from '../domain/ceremonies/methods/email-otp.js';
import { ApiKeyMethod } from '../domain/ceremonies/methods/api-key.js';
import { proofPostMethods } from '../domain/ceremonies/methods/proof-post.js';
import { WebAuthnPasskeyMethod } from '../domain/ceremonies/methods/webauthn-passkey.js';
import { MessengerMethod } from '../domain/ceremonies/methods/messenger.js';
import { MessengerInbox } from '../domain/ceremonies/messenger-inbox.js';
import { InboundResolver } from '../graph/resolvers/inbound.resolver.js';
import { buildGraphSchema } from '../graph/schema.js';
import { GraphAuthenticator } from '../graph/authenticate.js';
import { apiKeyResolver, CredentialResolverChain, sessionTokenResolver } from '../domain/identity/credential-resolver.js';
import { ConnectorGrants } from '../domain/identity/connector-grants.js';
import { OAuthPayloadStore } from '../domain/identity/oauth-storage.js';
import { readCaches } from './read-caches.js';
import { loadServerSecret } from '../domain/shared/server-secret.js';
import { claimCommitSubscriber } from '../domain/idempotency/claim-context.js';

export type ServiceOptions = {
  /** A mail transport of the caller's (tests); otherwise SMTP_URL, or the local outbox folder. */
  mailer?: Mailer;
  /** Node options of the sealing render threads (default: this process's). */
  workerExecArgv?: string[];
  /** OpenTelemetry (src/tracing/) when OTEL_EXPORTER_OTLP_ENDPOINT is set; otherwise nothing. */
  tracing?: Tracing;
  /** Where services count their outcomes (composition/metrics.ts) when metrics are on; otherwise nothing. */
  instruments?: Instruments | undefined;
};

export type Services = Awaited<ReturnType<typeof buildServices>>;

export async function buildServices(config: Config, options: ServiceOptions, orm: MikroORM, logger: Logger, clock: Clock) {
  const transport: Mailer =
    options.mailer ??
    (config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new OutboxMailer(config.mailOutboxDir, config.mailFrom));
  if (!config.smtpUrl && !options.mailer) logger.info({ outbox: config.mailOutboxDir }, 'SMTP_URL not set: mail goes to the local outbox');

  // Domain services: each takes only what it uses.
  const instruments = options.instruments ?? noInstruments;
  const rateLimiter = new RateLimiter(clock, instruments);
  const clientLimits = new ClientLimits({ orm, rateLimiter, settings: config.clientLimits });
  // Mail goes through the outbox: requests and record locks never wait for a mail server.
  const mailer = new MailQueue({ orm, transport, clock, logger, settings: config.mailQueue, instruments });
  const serverSecret = await loadServerSecret({ value: config.serverSecret, production: config.env === 'production', localDir: config.localStateDir });
  const otp = new OtpService({ orm, mailer, rateLimiter, clock, settings: config.otp, clientLimits, serverSecret, instruments });
  // Sign-out tells every instance through the credential watch (made below, with the resolver chain).
  const sessions = new SessionService({ orm, otp, clock, accessTokenTtlSeconds: config.accessTokenTtlSeconds, credentialsChanged: () => credentials.changed() });
  const mcpSessions = new McpSessions({
    orm,
    clock,
    limits: {
      idleSeconds: config.mcp.sessionIdleSeconds,
      unusedSeconds: config.mcp.sessionUnusedSeconds,
      initializePerMinute: config.mcp.initializePerMinute,
      maxSessions: config.mcp.maxSessions,
    },
    rateLimiter,
  });
  const mcpGrants = new McpGrants({ orm, otp, clock, ttlSeconds: config.mcp.grantTtlSeconds });
  const mcpConfirmations = new McpConfirmations({ orm, clock, ttlSeconds: config.mcp.confirmationTtlSeconds });
  const oauthStorage = new OAuthPayloadStore(orm, clock);
  const connectorGrants = new ConnectorGrants({ orm, otp, oauthStorage, clock });
  // An Idempotency-Key's claim commits with the change its request made (claim-context.ts).
  orm.em.getEventManager().registerSubscriber(claimCommitSubscriber());
  const housekeeping = new HousekeepingService(orm, clock);
  // What counts as stuck (one query): read by the warning job, the rss_stuck_work gauge and the ops CLI.
  const stuckWork = new StuckWork({ orm, clock, settings: { ...config.stuckWork, anchoring: config.chain !== null } });
  const stuckWorkWarnings = new StuckWorkWarnings({ orm, stuckWork, logger });
  // Idempotency-Key on every mutating REST route and GraphQL mutation, shared by every instance.
  const idempotency = new IdempotencyStore({ orm, clock, serverSecret });
  // Subscriptions span every instance on the database: PostgreSQL LISTEN/NOTIFY. LISTEN and session
  // locks need sessions of their own: the direct URL (DATABASE_DIRECT_URL behind a pooler).
  // A connection the server drops (restart, failover) must not crash the process.
  const sessionPool = resilientPool({ connectionString: config.databaseDirectUrl, max: 3, connectionTimeoutMillis: 10_000 }, (error) =>
    logger.warn({ err: error }, 'pubsub pool connection lost'),
  );
  const pubSub = new PostgresPubSub({ pool: sessionPool, url: config.databaseDirectUrl, logger });
  await pubSub.start();
  // The read caches, with every signal that drops them (one module: read-caches.ts).
  const caches = readCaches(config.caches, orm, pubSub);
  const records = new RecordService({ orm, clock, sealing: { explorerTxUrl: config.chain?.explorerTxUrl }, caches: { listings: caches.listings, views: caches.recordViews } });
  // Every transport resolves credentials through this one chain (OAuth and MCP resolvers join it later).
  // Answers are reused briefly; a revocation or merge drops them on every instance (LISTEN/NOTIFY).
  // A revocation advances the credential epoch before its answer leaves; a reused answer is checked against it.
  const credentialEpoch = new CredentialEpoch(orm);
  const principalCache = config.caches.principalSeconds > 0 ? { ttlMs: config.caches.principalSeconds * 1000, clock, epoch: credentialEpoch } : null;
  const credentialChain = new CredentialResolverChain([sessionTokenResolver(orm, clock), apiKeyResolver(orm, clock)], principalCache);
  // Live graphql-ws sockets check their credentials again on every revocation or merge (onCredentialsChanged).
  const credentialListeners: (() => void)[] = [];
  const credentials = watchCredentialChanges(
    pubSub,
    () => {
      credentialChain.invalidate();
      for (const listener of credentialListeners) listener();
    },
    () => credentialEpoch.advance(),
  );
  const authenticator = new GraphAuthenticator(credentialChain);
  const identities = new IdentityService({ orm, otp, clock, credentialsChanged: credentials.changed });
  const apiKeys = new ApiKeyService({ orm, clock, credentialsChanged: credentials.changed });
  // Domain events: journaled in each change's transaction, delivered after the commit by the outbox dispatcher.
  // Webhooks: the fan-out writes deliveries from the outbox; every instance's sender sends them.
  const webhookTargets = new WebhookTargets({ allowedHosts: config.webhooks.allowedHosts, production: config.env === 'production' });
  const webhookSecrets = new WebhookSecrets(serverSecret);
  const webhookSender = new WebhookSender({ orm, webhookTargets, webhookSecrets, mailer, clock, logger, settings: config.webhooks });
  const webhooksDue = pubSub.subscribe(WEBHOOKS_DUE)[Symbol.asyncIterator]();
  void (async () => {
    for (let next = await webhooksDue.next(); !next.done; next = await webhooksDue.next()) webhookSender.wake();
  })();
  const webhooks = new WebhookService({ orm, clock, webhookTargets, webhookSecrets, wakeSender: () => webhookSender.wake() });
  const outboxSubscribers: OutboxSubscriber[] = [liveSubscriber(pubSub), webhookFanout((topic) => pubSub.notifySql([[topic, null]]), (id) => webhookSecrets.eventId(id))];
  const tracing = options.tracing ?? noTracing;
  const dispatcher = new OutboxDispatcher({ pool: sessionPool, subscribers: outboxSubscribers, logger, pollMs: config.outboxPollMs, tracing, instruments });
  // Cards and sealed PDFs are drawn and signed on render threads (started on first use, stopped when idle).
  const renderer = tracedRenderer(threadRenderer(config.sealing.workers, { execArgv: options.workerExecArgv }), tracing);
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
  // Events that notifying alone delivers go out with their change's commit; the dispatcher is woken
  // only when a committed transaction left it events (a seal's jobs).
  const domainEvents = new EventJournal({
    sealContext,
    onCommitted: caches.eventsCommitted,
    inline: { subscribers: outboxSubscribers, wake: () => dispatcher.wake() },
    traceparent: () => tracing.traceparent(),
    instruments,
  });
  // Outbox rows written as entities (a record's creation) carry the trace context too.
  if (tracing !== noTracing) {
    orm.em.getEventManager().registerSubscriber({ getSubscribedEntities: () => [OutboxEvent], beforeCreate: ({ entity }) => void ((entity as OutboxEvent).traceparent ??= tracing.traceparent()) });
  }
  orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: ({ em }) => domainEvents.afterCommit(em) });
  // One adapter per signature method; the order is the contract's.
  const methods = [
    new EmailOtpMethod(otp),
    ...proofPostMethods(config.proofPosts, rateLimiter),
    new WebAuthnPasskeyMethod(config.webauthn),
    new MessengerMethod(config.messenger),
    new ApiKeyMethod(),
  ];
  const startLimit = { limit: config.methodStartsPerWindow, windowSeconds: 600, name: 'method_starts' };
  // Messenger messages go through their own outbox, as mail does: written with the change that causes them.
  const messengerQueue = config.messenger.botToken
    ? new MessengerQueue({ orm, sender: new BotApiMessengerSender(config.messenger.apiBase, config.messenger.botToken), clock, logger, settings: config.messengerQueue })
    : null;
  const invitations = new Invitations({ orm, mailer, messenger: messengerQueue, log: logger, publicBaseUrl: config.publicBaseUrl });
  const ceremonies = new CeremonyService({ orm, clock, methods, events: domainEvents, rateLimiter, invitations, startLimit });
  const messengerInbox = new MessengerInbox({ orm, ceremonies, clock, webhookSecret: config.messenger.webhookSecret, log: logger });
  if (!config.messenger.webhookSecret) logger.info('MESSENGER_WEBHOOK_SECRET not set: the messenger webhook refuses every update');
  const lifecycleSettings = {
    defaultLapseDays: config.defaultLapseDays,
    resendsPerHour: config.invitationResendsPerHour,
  };
  const lifecycle = new LifecycleService({ orm, clock, invitations, events: domainEvents, rateLimiter, settings: lifecycleSettings });
  const reminders = new Reminders({ orm, mailer, invitations, clock, logger, publicBaseUrl: config.publicBaseUrl, settings: config.reminders });
  const counters = new CounterService({ orm, clock, events: domainEvents });
  const amendments = new AmendmentService({ orm, clock, events: domainEvents });
  const templates = new TemplateService({ orm, clock, records });
  const bulkSends = new BulkSendService({
    orm,
    clock,
    events: domainEvents,
    records,
    templates,
    submit: {
      signAndSubmit: async (principal, recordId, bulkSendId, within) => {
        await ceremonies.signWithApiKey(principal, recordId, { purpose: 'bulk_send', bulkSendId }, within);
        await lifecycle.submit(principal, recordId, within);
      },
    },
    progressed: (bulkSendId) => pubSub.publish(BULK_SEND_PROGRESS, bulkSendId, {}),
  });
  const live = { ...liveUpdates(pubSub, records, missedOutboxEvents(orm), new EventCursors(serverSecret)), bulkSendProgress: bulkSendProgress(pubSub, bulkSends) };
  const artifactStore = new PostgresArtifactStore();
  const anchoring = chain
    ? new AnchoringService({
        orm,
        chain,
        events: domainEvents,
        clock,
        logger,
        settings: { batchMax: config.chain!.batchMax, retryMaxSeconds: config.chain!.retryMaxSeconds },
        instruments,
        sessions: config.databaseBehindPooler ? sessionPool : null,
      })
    : null;
  // Cards and PDFs render on SEAL_WORKERS threads, never on the thread that answers the API.
  const sealArtifacts = new SealArtifacts({
    orm,
    artifactStore,
    sealKey,
    events: domainEvents,
    clock,
    settings: { tsaUrls: config.sealing.tsaUrls, serviceName: 'Record Signing', completionRetrySeconds: config.sealing.completionRetrySeconds },
    logger,
    renderer,
    instruments,
  });
  const archiveRenewal = new ArchiveRenewal({
    orm,
    artifactStore,
    renderer,
    clock,
    settings: { tsaUrls: config.sealing.tsaUrls, renewBeforeDays: config.sealing.archiveRenewBeforeDays },
    logger,
  });
  const sealCompletion = new SealCompletion({
    orm,
    artifactStore,
    renderer,
    clock,
    settings: { tsaUrls: config.sealing.tsaUrls, firstRetrySeconds: config.sealing.completionRetrySeconds, maxRetrySeconds: config.sealing.completionRetryMaxSeconds },
    logger,
    instruments,
  });

  // Bulk exports: the job that prepares them is enqueued where jobs run (composition/jobs.ts, onQueued).
  const exports = new ExportService({
    orm,
    clock,
    sealArtifacts,
    artifactStore,
    publish: (topic, id, payload) => pubSub.publish(topic, id, payload),
    subscribe: (topic, id) => pubSub.subscribe(topic, id),
    settings: { publicBaseUrl: config.publicBaseUrl, ttlSeconds: config.exports.ttlSeconds, linkTtlSeconds: config.sealing.cardTicketTtlSeconds, maxRecords: config.exports.maxRecords },
    logger,
  });

  const verification = new VerificationService({ orm, clientLimits, chain, sealing: { explorerTxUrl: config.chain?.explorerTxUrl }, cache: caches.publicAnswers });
  const resolvers = {
    auth: new AuthResolver({ otp, sessions, mcpGrants }),
    identity: new IdentityResolver({ identities, apiKeys, connectorGrants }),
    records: new RecordResolver(records),
    ceremonies: new CeremonyResolver(ceremonies, records),
    identicons: new IdenticonResolver(),
    inbound: new InboundResolver(messengerInbox),
    lifecycle: new LifecycleResolver({ lifecycle, records, counters, amendments }),
    notarizations: new NotarizationResolver({
      notarizations: new NotarizationService({
        orm,
        clock,
        autoSeal: {
          events: domainEvents,
          sign: (principal, recordId, within) => ceremonies.autoSeal(principal, recordId, within),
          submit: (principal, recordId, within) => lifecycle.submit(principal, recordId, within),
        },
      }),
      ceremonies,
      records,
    }),
    verification: new VerificationResolver(verification),
    webhooks: new WebhookResolver(webhooks),
    teams: new TeamResolver({
      teams: new TeamService({
        orm,
        clock,
        mailer,
        settings: { publicBaseUrl: config.publicBaseUrl },
        accessChanged: async () => pubSub.publish(TEAM_ACCESS_CHANGED, {}),
        credentialsChanged: credentials.changed,
      }),
      apiKeys,
      webhooks,
    }),
    templates: new TemplateResolver(templates),
    bulkSends: new BulkSendResolver(bulkSends),
    secretInputs: new SecretInputResolver(new SecretInputs({ orm, ceremonies, mcpGrants, clock, settings: { publicBaseUrl: config.publicBaseUrl, ttlSeconds: config.mcp.secretInputTtlSeconds } })),
    exports: new ExportResolver(exports),
    artifacts: new ArtifactsResolver(
      new SealingService({
        orm,
        artifactStore,
        sealArtifacts,
        clock,
        settings: { publicBaseUrl: config.publicBaseUrl, cardTicketTtlSeconds: config.sealing.cardTicketTtlSeconds },
      }),
    ),
  };
  const schema = await buildGraphSchema(resolvers, { pubSub });

  return {
    schema,
    live: { ...live, exportProgress: (principal, id) => exports.progress(principal, id) } satisfies LiveUpdates,
    exports,
    authenticator,
    credentialChain,
    /** Called on every credential revocation or identity merge, on any instance. */
    onCredentialsChanged: (listener: () => void) => void credentialListeners.push(listener),
    credentials,
    idempotency,
    clientLimits,
    mcp: { sessions: mcpSessions, grants: mcpGrants, confirmations: mcpConfirmations, events: new McpEvents(orm, clock) },
    oauth: { storage: oauthStorage, grants: connectorGrants },
    messengerInbox,
    caches,
    /** Whether a sealed record's public answer is kept now (the REST facade keeps its bytes only then). */
    publicRecordKept: (reference: string) => verification.publicRecordKept(reference),
    pubSub,
    sessionPool,
    outboxSubscribers,
    dispatcher,
    mailer,
    /** Null without a bot token. */
    messengerQueue,
    webhookSender,
    stopWebhookWakeUps: async () => void (await webhooksDue.return?.()),
    renderer,
    tracing,
    instruments,
    housekeeping,
    stuckWork,
    stuckWorkWarnings,
    records,
    lifecycle,
    counters,
    amendments,
    ceremonies,
    reminders,
    bulkSends,
    sealArtifacts,
    archiveRenewal,
    sealCompletion,
    anchoring,
  };
}

/** Runs one stop step (app.ts bounds each in time; a test just runs it). */
type StopStep = (name: string, run: () => Promise<unknown>) => Promise<unknown>;

/**
 * Stops what `buildServices` started that the transports and jobs do not own, in order: the
 * workers, the render threads, the watches, then the session pool. The outbox dispatcher stops before
 * the job queue (app.ts), and the ORM is its opener's to close.
 */
export async function stopServices(services: Services, step: StopStep = (_name, run) => run()): Promise<void> {
  await step('reminders', () => services.reminders.stop());
  await step('webhook sender', () => services.webhookSender.close());
  await step('webhook wake-ups', services.stopWebhookWakeUps);
  await step('mail worker', async () => services.mailer.close?.());
  await step('messenger worker', async () => services.messengerQueue?.close());
  await step('render threads', () => services.renderer.close());
  await step('activity watch', services.caches.stop);
  await step('credential watch', services.credentials.stop);
  await step('pubsub', () => services.pubSub.close());
  await step('session pool', () => services.sessionPool.end());
}

/** The configured chain, connected on first use and again after a failed attempt. */
function lazyChain(settings: NonNullable<Config['chain']>, localStateDir: string, connected: (chain: AnchorChain) => void): () => Promise<AnchorChain> {
  // The chain's code (ox) is loaded with the first connection: a service without a chain never loads it.
  return madeOnFirstUse(async () => {
    const { DEVELOPMENT_SIGNER_KEY, EvmAnchorChain } = await import('../domain/anchoring/evm-chain.js');
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

