import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Agenda } from 'agenda';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config.js';
import { applyRoleTimeouts, migrate, openDatabase } from './infrastructure/database.js';
import type { Mailer } from './domain/mail/mailer.js';
import type { MailQueue } from './domain/mail/mail-queue.js';
import type { WebhookSender } from './domain/webhooks/sender.js';
import type { Reminders } from './domain/records/reminders.js';
import type { HousekeepingService } from './domain/maintenance/housekeeping-service.js';
import type { StuckWorkWarnings } from './domain/maintenance/stuck-work-warnings.js';
import type { OutboxDispatcher } from './domain/outbox/dispatcher.js';
import type { SealArtifacts } from './domain/sealing/artifacts-service.js';
import type { ArchiveRenewal } from './domain/sealing/archive-renewal.js';
import type { AnchoringService } from './domain/anchoring/anchoring-service.js';
import { systemClock, type Clock } from './domain/shared/clock.js';
import type { Tracing } from './domain/shared/tracing.js';
import { formatGraphError } from './graph/errors.js';
import { GraphExecutor } from './graph/executor.js';
import type { PostgresPubSub } from './graph/pubsub.js';
import { createRestFacade } from './facade-rest/router.js';
import { restErrorHandler } from './facade-rest/errors.js';
import type { ConnectorAuthenticator } from './facade-oauth/resource.js';
import { createLogger } from './logger.js';
import { webUiRouter } from './web-ui.js';
import { readiness } from './readiness.js';
import { buildServices, stopServices } from './composition/services.js';
import type { ReadCaches } from './composition/read-caches.js';
import { createHttp } from './composition/http.js';
import { mountGraphql } from './composition/graphql.js';
import { mountConnectors } from './composition/connectors.js';
import { startJobs } from './composition/jobs.js';
import { createMetrics, createMetricsRegistry } from './composition/metrics.js';

export type AppOptions = {
  logger?: Logger;
  clock?: Clock;
  mailer?: Mailer;
  /** How often Agenda polls for due jobs; tests poll fast. */
  jobProcessEvery?: string | number;
  /** Node options of the sealing render threads (default: this process's); tests running the sources pass their TypeScript loader. */
  workerExecArgv?: string[];
  /** OpenTelemetry's spans for the work no instrumentation sees (main.ts starts it when OTEL_EXPORTER_OTLP_ENDPOINT is set). */
  tracing?: Tracing;
};

export type App = {
  url: string;
  /** Services tests and tools drive directly (a job's work without its queue). */
  services: {
    sealArtifacts: SealArtifacts;
    /** The archive timestamp renewal the hourly job runs. */
    archiveRenewal: ArchiveRenewal;
    dispatcher: OutboxDispatcher;
    housekeeping: HousekeepingService;
    /** The stuck-work check the periodic job runs. */
    stuckWork: StuckWorkWarnings;
    anchoring: AnchoringService | null;
    mail: MailQueue;
    webhooks: WebhookSender;
    /** Reminders (mail or messenger) to participants who have not signed (swept on every instance while JOBS_ENABLED). */
    reminders: Reminders;
    /** The `/mcp/oauth` token check: an Authorization header to a connector principal. */
    connectorAuth: ConnectorAuthenticator;
    /** The in-process GraphQL executor every facade runs the catalog with. */
    graph: GraphExecutor;
    /** The notifications between instances, and this instance's live subscribers. */
    pubSub: PostgresPubSub;
    /** The instance's read caches (read-caches.ts): what is kept, for tests and diagnostics. */
    caches: ReadCaches;
  };
  /** The metrics listener of its own (METRICS_PORT), or null. */
  metricsUrl: string | null;
  server: Server;
  orm: MikroORM;
  agenda: Agenda | null;
  logger: Logger;
  stop: () => Promise<void>;
};

/**
 * The composition root: config -> database -> services and schema (composition/services.ts) -> the
 * HTTP server (http.ts) with GraphQL (graphql.ts), the assistants' connectors (connectors.ts), the web
 * UI and REST -> jobs (jobs.ts) -> listen. The stop runs the same steps backwards, each bounded.
 */
export async function startApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  // Before any statement goes through the pooler: the server sessions it opens take the role's settings.
  if (config.databaseBehindPooler) await applyRoleTimeouts(config.databaseDirectUrl, config.databaseTimeouts, (message) => logger.warn(message));
  const orm = await openDatabase({ url: config.databaseUrl, poolMax: config.databasePoolMax, behindPooler: config.databaseBehindPooler, ...config.databaseTimeouts });
  if (config.migrateOnStart) await migrate(orm, config.databaseDirectUrl);
  // The metrics registry first: the services report their outcomes into it (or nowhere, metrics off).
  const registry = createMetricsRegistry({ token: config.metricsToken, port: config.metricsPort });
  const services = await buildServices(config, { ...options, instruments: registry?.instruments }, orm, logger, clock);
  const { schema, pubSub } = services;

  const metrics = createMetrics(orm, { token: config.metricsToken, port: config.metricsPort, stuckWork: services.stuckWork, subscribers: () => pubSub.subscriberCount, registry });
  const { app, server, drain, early } = createHttp(config, logger, metrics?.observe, services.caches.publicAnswerBytes);
  const formatError = formatGraphError(logger, services.instruments);
  const graphql = await mountGraphql(app, server, {
    schema,
    config,
    authenticator: services.authenticator,
    idempotency: services.idempotency,
    live: services.live,
    formatError,
    instruments: services.instruments,
    tracing: services.tracing,
    keptRecordReads: services.caches.graphqlRecordAnswers,
    early,
    logger,
  });
  services.onCredentialsChanged(graphql.recheckCredentials);
  // Every facade runs the catalog's documents in-process on this one executor.
  const executor = new GraphExecutor({ schema, formatError, tracing: services.tracing, instruments: services.instruments });
  const ready = readiness(config.databaseUrl, () => pubSub.listening, () => drain.stopping);
  const { connectorAuth, mcp } = mountConnectors(app, server, { config, services, executor, orm, clock, logger });
  if (metrics) app.use(metrics.endpoint);
  // The web UI answers only its own pages and assets; the REST facade below takes every other path.
  app.use(webUiRouter(undefined, { chainPublicRpcUrl: config.chain?.publicRpcUrl }));
  app.use(mcp.router);
  app.use(
    await createRestFacade({
      executor,
      authenticate: (credentials) => services.credentialChain.authenticate(credentials),
      services: {
        readiness: () => ready.check(),
        mcpDiagnostics: () => mcp.diagnostics({ authModes: ['public', 'api_key', 'mcp_otp', 'mcp_transport_token', 'oauth'] }),
        exportZip: async (token) => {
          const { exportId, filename } = await services.exports.redeem(token);
          return { filename, write: (out) => services.exports.writeZip(exportId, out) };
        },
        messenger: services.messengerInbox,
      },
      idempotency: services.idempotency,
      listingAnswers: services.caches.listingAnswers,
      recordAnswers: services.caches.recordAnswers,
      publicAnswers: services.caches.publicAnswerBytes ? { bytes: services.caches.publicAnswerBytes, kept: services.publicRecordKept } : null,
      logger,
    }),
  );
  app.use(restErrorHandler(logger));

  const jobs = await startJobs(config, { services, orm, clock, pubSub, logger, processEvery: options.jobProcessEvery });
  services.dispatcher.start();
  services.mailer.start();
  services.messengerQueue?.start();
  services.webhookSender.start();
  if (config.jobsEnabled) services.reminders.start();

  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address() as AddressInfo;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${address.port}`;
  logger.info({ url }, 'record signing service listening');
  const metricsListener = metrics && config.metricsPort !== null ? await metrics.listen(config.metricsHost, config.metricsPort) : null;
  if (metricsListener) logger.info({ url: metricsListener.url }, 'metrics listening');

  const { sealArtifacts, dispatcher, housekeeping, anchoring, mailer } = services;
  let stopping: Promise<void> | null = null;
  return {
    url,
    services: { sealArtifacts, archiveRenewal: services.archiveRenewal, dispatcher, housekeeping, stuckWork: services.stuckWorkWarnings, anchoring, mail: mailer, webhooks: services.webhookSender, reminders: services.reminders, connectorAuth, graph: executor, pubSub, caches: services.caches },
    server,
    orm,
    metricsUrl: metricsListener?.url ?? null,
    agenda: jobs.agenda,
    logger,
    // Once: a second call (a second signal, a test's own stop) waits for the first.
    stop: () => (stopping ??= stopSteps()),
  };

  /** The stop: the start's steps backwards, each bounded. */
  async function stopSteps(): Promise<void> {
    // Each step is bounded: a pool holding a connection that died mid-query must not keep the process from stopping.
    const step = (name: string, run: () => Promise<unknown>) => settleWithin(name, run, STOP_STEP_MS, logger);
    // HTTP first, while everything it needs still runs: readiness 503 and `Connection: close` at once,
    // still serving for the drain delay (a balancer notices), then no new connections, the requests in
    // flight answered, WebSocket clients told "going away", idle keep-alive connections left to close.
    const { drainMs } = config.shutdown;
    drain.begin();
    if (drainMs > 0) await new Promise((resolve) => setTimeout(resolve, drainMs));
    await step('http requests in flight', () => drain.stopAccepting());
    await step('graphql subscriptions', graphql.closeSubscriptions);
    await step('http connections', () => drain.quiet(drainMs > 0 ? server.keepAliveTimeout + 1000 : 0));
    await step('graphql', graphql.stop);
    // Then the work in progress: jobs finish or are handed back (their locks released), the outbox stops.
    await step('outbox dispatcher', () => dispatcher.stop());
    await step('job queue', () => jobs.stop(Math.min(JOB_FINISH_MS, config.shutdown.timeoutMs / 3)));
    await step('job queue pool', jobs.close);
    if (metricsListener) await step('metrics listener', metricsListener.close);
    metrics?.close();
    await stopServices(services, step);
    await step('readiness probe', () => ready.close());
    await step('database', () => orm.close());
  }
}

const STOP_STEP_MS = 10_000;
/** How long running jobs may take to finish at a stop before they are handed back (at most a third of SHUTDOWN_TIMEOUT_MS). */
const JOB_FINISH_MS = 8000;

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
