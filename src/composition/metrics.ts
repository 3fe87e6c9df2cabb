import { timingSafeEqual } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { StuckWork } from '../domain/maintenance/stuck-work.js';
import type { Instruments } from '../domain/shared/instruments.js';
import { countsOf, FastHistogram } from './metric-families.js';
import { observePool, prometheusInstruments } from './metrics-instruments.js';

const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * The route a request is counted under: a template, never an id, a reference or an address (the
 * REST facade names its matched operation's path in `res.locals.route`; other mounts by prefix).
 */
function routeOf(req: Request, res: Response): string {
  const named = (res.locals as { route?: unknown }).route;
  if (typeof named === 'string') return named;
  const path = req.path;
  for (const prefix of ['/graphql', '/mcp/oauth', '/mcp', '/oauth', '/health/ready', '/health', '/api/openapi.json', '/api/docs', '/metrics']) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return prefix;
  }
  if (path.startsWith('/.well-known/')) return '/.well-known';
  return path.startsWith('/api/') ? 'unmatched' : 'web';
}

/** What the database says, read when scraped: the same on every instance. */
const BACKLOG = `
  with waiting as (
    select s.sealed_at from record_seals s
     where not exists (select 1 from sealed_artifacts a where a.record_id = s.record_id and a.kind = 'share_card')
  )
  select
    (select count(*) from outbox_events where delivered_at is null)::int as outbox_pending,
    coalesce(extract(epoch from now() - (select min(created_at) from outbox_events where delivered_at is null)), 0)::float as outbox_oldest,
    (select count(*) from record_seals)::int as sealed,
    (select count(*) from waiting)::int as seals_waiting,
    coalesce(extract(epoch from now() - (select min(sealed_at) from waiting)), 0)::float as seals_waiting_oldest,
    (select coalesce(json_object_agg(anchor_status, n), '{}') from (select anchor_status, count(*)::int as n from record_seals group by anchor_status) x) as anchors,
    coalesce(extract(epoch from now() - (select min(sealed_at) from record_seals where anchor_status in ('pending', 'retrying'))), 0)::float as anchors_oldest,
    (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from mail_outbox group by status) x) as mail,
    coalesce(extract(epoch from now() - (select min(created_at) from mail_outbox where status in ('pending', 'sending'))), 0)::float as mail_oldest,
    (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from messenger_outbox group by status) x) as messenger,
    (select coalesce(json_object_agg(status, n), '{}') from (select status, count(*)::int as n from webhook_deliveries group by status) x) as webhooks,
    coalesce(extract(epoch from now() - (select min(created_at) from webhook_deliveries where status = 'pending')), 0)::float as webhooks_oldest,
    (select count(*) from webhook_endpoints where not enabled)::int as webhooks_disabled`;

type Backlog = {
  outbox_pending: number;
  outbox_oldest: number;
  sealed: number;
  seals_waiting: number;
  seals_waiting_oldest: number;
  anchors: Record<string, number>;
  anchors_oldest: number;
  mail: Record<string, number>;
  mail_oldest: number;
  messenger: Record<string, number>;
  webhooks: Record<string, number>;
  webhooks_oldest: number;
  webhooks_disabled: number;
};

export type Metrics = {
  /** Times every request (mounted first): notes when it came; its answer's end is heard on Node's `http.server.response.finish` channel. */
  observe: (req: Request, res: Response, next: NextFunction) => void;
  /** `GET /metrics` on the main port: the Prometheus text format for a bearer of the token (none: not served there). */
  endpoint: (req: Request, res: Response, next: NextFunction) => void;
  /** A listener of its own that answers `GET /metrics` without a token (bind it to a private address). */
  listen: (host: string, port: number) => Promise<{ url: string; close: () => Promise<void> }>;
  /** Stops hearing answers (the process may hold other instances: tests). */
  close: () => void;
};

/** One instance's registry and the instruments the services report into it (made before the services). */
export type MetricsRegistry = { registry: Registry; instruments: Instruments };

/**
 * The registry of one instance with its process's default figures and the outcome families the
 * services report (metrics-instruments.ts). Neither a token nor a port of its own: null, nothing is
 * collected (the services get `noInstruments`) and `/metrics` is not served (404, as any unknown path).
 */
export function createMetricsRegistry(settings: { token: string | null; port: number | null }): MetricsRegistry | null {
  if (!settings.token && settings.port === null) return null;
  const registry = new Registry();
  defaultMetrics(registry);
  return { registry, instruments: prometheusInstruments(registry) };
}

/**
 * prom-client's default figures of the process (CPU, memory, heap spaces, event-loop lag, handles,
 * file descriptors, version) but its GC durations: those come from a PerformanceObserver on `gc`
 * entries, for each of which Node 24 builds deprecated accessors (DEP0152) anew, and a record read
 * makes enough garbage for that to cost about 1% of its CPU (bench/metrics.bench.ts). Each collector
 * is prom-client's own, by its own list.
 */
function defaultMetrics(registry: Registry): void {
  const require = createRequire(import.meta.url);
  const names = (collectDefaultMetrics as unknown as { metricsList: string[] }).metricsList;
  for (const name of names) {
    if (name === 'gc') continue;
    const collect = require(`prom-client/lib/metrics/${name}.js`) as (registry: Registry, config: object) => void;
    collect(registry, { eventLoopMonitoringPrecision: 10 });
  }
}

/**
 * Prometheus metrics of one instance (`prom-client`): its process, its HTTP requests by method, route
 * template and status class, its database pool and statements, the outcomes its services report, and
 * the backlogs the database holds (outbox, seals waiting for their artifacts, anchoring, mail,
 * webhooks), read at each scrape.
 */
export function createMetrics(
  orm: MikroORM,
  settings: { token: string | null; port: number | null; stuckWork?: Pick<StuckWork, 'counts'>; subscribers?: () => number; registry: MetricsRegistry | null },
): Metrics | null {
  if (!settings.registry) return null;
  const { token } = settings;
  const { registry } = settings.registry;
  void orm.em.getConnection().getNativeClient().then((pool) => observePool(registry, pool), () => undefined);
  const requests = new FastHistogram(
    registry,
    'http_request_duration_seconds',
    'HTTP requests of this instance by method, route template and status class, and how long they took',
    ['method', 'route', 'status_class'],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  countsOf(registry, requests, 'http_requests_total', 'HTTP requests of this instance by method, route template and status class');
  // When each request came, on its response (this instance's own mark: the channel below hears every server of the process).
  const came = Symbol('metrics.came');
  type Marked = Response & { [came]?: number };
  const answered = (message: unknown) => {
    const { request, response } = message as { request: Request; response: Marked };
    const start = response[came];
    if (start === undefined) return;
    requests.child(request.method, routeOf(request, response), STATUS_CLASSES[Math.floor(response.statusCode / 100)] ?? 'other').observe((performance.now() - start) / 1000);
  };
  diagnostics.subscribe('http.server.response.finish', answered);
  const fromDatabase = ' (from the database: the same on every instance)';
  const gauges = {
    outboxPending: new Gauge({ name: 'rss_outbox_pending_events', help: `Domain events not yet delivered${fromDatabase}`, registers: [registry] }),
    outboxOldest: new Gauge({ name: 'rss_outbox_oldest_pending_age_seconds', help: `Age of the oldest undelivered event${fromDatabase}`, registers: [registry] }),
    sealed: new Gauge({ name: 'rss_sealed_records', help: `Records sealed so far${fromDatabase}`, registers: [registry] }),
    sealsWaiting: new Gauge({ name: 'rss_seals_waiting_artifacts', help: `Sealed records whose PDF and card are not made yet${fromDatabase}`, registers: [registry] }),
    sealsWaitingOldest: new Gauge({ name: 'rss_seals_waiting_oldest_age_seconds', help: `How long the oldest seal has waited for its artifacts${fromDatabase}`, registers: [registry] }),
    anchors: new Gauge({ name: 'rss_anchors', help: `Seals by anchoring status (pending, retrying, confirmed)${fromDatabase}`, labelNames: ['status'], registers: [registry] }),
    anchorsOldest: new Gauge({ name: 'rss_anchors_oldest_unconfirmed_age_seconds', help: `How long ago the oldest seal still pending or retrying its anchoring was sealed${fromDatabase}`, registers: [registry] }),
    mail: new Gauge({ name: 'rss_mail_messages', help: `Mail in the outbox by status${fromDatabase}`, labelNames: ['status'], registers: [registry] }),
    messenger: new Gauge({ name: 'rss_messenger_messages', help: `Messenger messages in the outbox by status${fromDatabase}`, labelNames: ['status'], registers: [registry] }),
    mailOldest: new Gauge({ name: 'rss_mail_oldest_queued_age_seconds', help: `Age of the oldest mail still queued (pending or sending)${fromDatabase}`, registers: [registry] }),
    webhooks: new Gauge({ name: 'rss_webhook_deliveries', help: `Webhook deliveries kept (30 days) by status${fromDatabase}`, labelNames: ['status'], registers: [registry] }),
    webhooksOldest: new Gauge({ name: 'rss_webhook_oldest_pending_age_seconds', help: `Age of the oldest pending webhook delivery${fromDatabase}`, registers: [registry] }),
    webhooksDisabled: new Gauge({ name: 'rss_webhook_endpoints_disabled', help: `Webhook endpoints disabled (by their owner, 410 Gone or failing)${fromDatabase}`, registers: [registry] }),
  };
  const stuck = new Gauge({
    name: 'rss_stuck_work',
    help: `Work waiting past its threshold, by kind (seal_artifacts, anchoring, mail_queued, mail_failed, messenger_queued, messenger_failed, webhook_failed)${fromDatabase}`,
    labelNames: ['kind'],
    registers: [registry],
  });
  // Of this instance. Every open GraphQL subscription listens, and so do a few of the service's own
  // loops (job and webhook wake-ups, cache invalidation): the gauge counts listeners, not subscriptions.
  new Gauge({
    name: 'rss_live_listeners',
    help: 'Listeners this instance holds on notifications from every instance: each open GraphQL subscription (one or two), and a few of the service\'s own',
    registers: [registry],
    collect() {
      if (settings.subscribers) this.set(settings.subscribers());
    },
  });
  const readBacklog = async () => {
    const [row] = await orm.em.fork().execute<Backlog[]>(BACKLOG);
    if (!row) return;
    gauges.outboxPending.set(row.outbox_pending);
    gauges.outboxOldest.set(row.outbox_oldest);
    gauges.sealed.set(row.sealed);
    gauges.sealsWaiting.set(row.seals_waiting);
    gauges.sealsWaitingOldest.set(row.seals_waiting_oldest);
    gauges.anchors.reset();
    for (const [status, n] of Object.entries(row.anchors)) gauges.anchors.set({ status }, n);
    gauges.mail.reset();
    for (const [status, n] of Object.entries(row.mail)) gauges.mail.set({ status }, n);
    gauges.anchorsOldest.set(row.anchors_oldest);
    gauges.mailOldest.set(row.mail_oldest);
    gauges.messenger.reset();
    for (const [status, n] of Object.entries(row.messenger)) gauges.messenger.set({ status }, n);
    gauges.webhooks.reset();
    for (const [status, n] of Object.entries(row.webhooks)) gauges.webhooks.set({ status }, n);
    gauges.webhooksOldest.set(row.webhooks_oldest);
    gauges.webhooksDisabled.set(row.webhooks_disabled);
    // The stuck-work check's own query (stuck-work.ts): every kind, 0 included, so an alert can say "> 0".
    if (settings.stuckWork) for (const [kind, n] of Object.entries(await settings.stuckWork.counts())) stuck.set({ kind }, n);
  };
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  const render = async () => {
    await readBacklog();
    return registry.metrics();
  };
  return {
    observe: (_req, res, next) => {
      (res as Marked)[came] = performance.now();
      next();
    },
    close: () => void diagnostics.unsubscribe('http.server.response.finish', answered),
    endpoint: (req, res, next) => {
      if (req.method !== 'GET' || req.path !== '/metrics' || !expected) return next();
      const presented = Buffer.from(req.headers.authorization ?? '');
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
        res.status(401).setHeader('WWW-Authenticate', 'Bearer realm="metrics"').json({ detail: 'A valid metrics bearer token is required', error_code: 'unauthenticated' });
        return;
      }
      void render().then((text) => res.setHeader('Content-Type', registry.contentType).send(text), next);
    },
    listen: async (host, port) => {
      const server = createServer((req, res) => {
        if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://metrics').pathname !== '/metrics') {
          res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
          return;
        }
        render().then(
          (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
          () => res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n'),
        );
      });
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
      const address = server.address() as AddressInfo;
      return {
        url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
        close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      };
    },
  };
}
