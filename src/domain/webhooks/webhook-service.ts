import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { isUuid } from '../shared/ids.js';
import { optionalLine } from '../shared/unicode.js';
import type { Principal } from '../identity/principal.js';
import { requireAccess, type TeamOperation } from '../identity/operation-access.js';
import { readerOf, readerTeams, requireTeamRole } from '../teams/team-access.js';
import { appendTeamActivity } from '../teams/team-activity.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './events.js';
import { WebhookDelivery, WebhookEndpoint } from './entities.js';
import { newWebhookSecret, type WebhookSecrets } from './signature.js';
import type { WebhookTargets } from './target.js';

/** Endpoints one identity may have. */
export const WEBHOOKS_PER_IDENTITY = 20;
export const WEBHOOK_DESCRIPTION_MAX = 200;
/** How long a rotated-out secret keeps signing alongside the new one. */
const SECRET_OVERLAP_SECONDS = 24 * 3600;
export const DELIVERY_PAGE_MAX = 100;

export type CreateWebhookInput = {
  url: string;
  events: readonly string[];
  description?: string | null;
};
export type UpdateWebhookInput = {
  url?: string | null;
  events?: readonly string[] | null;
  description?: string | null;
  enabled?: boolean | null;
};

/** An endpoint as its owner sees it: never the secret, except once at creation and rotation. */
export type WebhookView = {
  id: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  /** Until then the previous secret signs too (after a rotation). */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

export type DeliveryView = {
  id: string;
  eventId: string;
  type: WebhookEventType;
  recordId: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
  createdAt: Date;
};

/**
 * Webhook endpoints of an identity, managed with a bearer session (like API keys): the secret is
 * shown once, at creation and at each rotation; the URL is checked against the target rules when it
 * is given (`WebhookTargets`) and again at every delivery.
 */
export class WebhookService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      webhookTargets: WebhookTargets;
      webhookSecrets: WebhookSecrets;
      /** Deliveries were written: the sender looks now. */
      wakeSender: () => void;
    },
  ) {}

  /** The caller's endpoints, or with `teamId` the team's (its admins manage them). */
  async list(principal: Principal | null, teamId?: string): Promise<WebhookView[]> {
    const caller = requireAccess(principal, teamId === undefined ? 'webhooks.list' : 'teams.listWebhooks');
    const em = this.deps.orm.em.fork();
    const owner = teamId === undefined ? caller.identityId : await this.team(em, caller, teamId, 'teams.listWebhooks');
    const endpoints = await em.find(WebhookEndpoint, { identity: owner }, { orderBy: { createdAt: 'desc', id: 'asc' } });
    return endpoints.map(view);
  }

  async get(principal: Principal | null, id: string): Promise<WebhookView> {
    return view(await this.own(this.deps.orm.em.fork(), principal, id));
  }

  /** An endpoint of the caller's, or with `teamId` of the team's: it receives the team's records' events. */
  async create(principal: Principal | null, input: CreateWebhookInput, teamId?: string): Promise<{ webhook: WebhookView; secret: string }> {
    const caller = requireAccess(principal, teamId === undefined ? 'webhooks.create' : 'teams.createWebhook');
    const owner = teamId === undefined ? caller.identityId : await this.team(this.deps.orm.em.fork(), caller, teamId, 'teams.createWebhook');
    const issues = new IssueCollector();
    const events = checkEvents(issues, input.events);
    const description = optionalLine(issues, input.description, 'description', WEBHOOK_DESCRIPTION_MAX);
    issues.throwIfAny();
    const url = await this.checkUrl(input.url);
    const secret = newWebhookSecret();
    // Counted and added under a lock of the identity's own: concurrent creations cannot pass the cap together.
    const endpoint = await this.deps.orm.em.fork().transactional(async (em: EntityManager) => {
      await em.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`webhook_endpoints:${owner}`]);
      const count = await em.count(WebhookEndpoint, { identity: owner });
      if (count >= WEBHOOKS_PER_IDENTITY) throw new DomainError('conflict', `An identity can have at most ${WEBHOOKS_PER_IDENTITY} webhook endpoints; delete one first`);
      const now = this.deps.clock.now();
      const id = randomUUID();
      const created = em.create(WebhookEndpoint, {
        id,
        identity: owner,
        url,
        events,
        description,
        secret: this.deps.webhookSecrets.seal(id, secret),
        createdAt: now,
        updatedAt: now,
      });
      if (teamId !== undefined) {
        await em.flush();
        await appendTeamActivity(em, owner, caller.identityId, 'webhook_created', { webhook_id: id, url }, now);
      }
      return created;
    });
    return { webhook: view(endpoint), secret };
  }

  async update(principal: Principal | null, id: string, input: UpdateWebhookInput): Promise<WebhookView> {
    const issues = new IssueCollector();
    const events = input.events == null ? null : checkEvents(issues, input.events);
    const description = input.description === undefined ? undefined : optionalLine(issues, input.description, 'description', WEBHOOK_DESCRIPTION_MAX);
    issues.throwIfAny();
    const url = input.url == null ? null : await this.checkUrl(input.url);
    // One transaction: the change and, for a team's endpoint, its entry in the team's activity log.
    return this.deps.orm.em.fork().transactional(async (em) => {
      const endpoint = await this.own(em, principal, id);
      if (url !== null) endpoint.url = url;
      if (events) endpoint.events = events;
      if (description !== undefined) endpoint.description = description;
      if (input.enabled === true && !endpoint.enabled) {
        // Enabled again: failures before the pause do not count towards disabling it again.
        Object.assign(endpoint, {
          enabled: true,
          disabledReason: null,
          disabledAt: null,
          failingSince: null,
        });
      } else if (input.enabled === false && endpoint.enabled) {
        Object.assign(endpoint, {
          enabled: false,
          disabledReason: 'owner',
          disabledAt: this.deps.clock.now(),
        });
        await em.nativeUpdate(
          WebhookDelivery,
          { endpoint: endpoint.id, status: 'pending' },
          {
            status: 'failed',
            failedAt: this.deps.clock.now(),
            nextAttemptAt: null,
            lastError: 'endpoint disabled',
          },
        );
      }
      endpoint.updatedAt = this.deps.clock.now();
      await em.flush();
      await this.logTeamChange(em, principal, endpoint, 'webhook_changed');
      return view(endpoint);
    });
  }

  /** Deletes an endpoint and its deliveries: nothing more is sent to it, not even a retry. */
  async remove(principal: Principal | null, id: string): Promise<void> {
    const em = this.deps.orm.em.fork();
    const endpoint = await this.own(em, principal, id);
    await em.transactional(async (tx) => {
      await tx.nativeDelete(WebhookEndpoint, { id: endpoint.id });
      await this.logTeamChange(tx, principal, endpoint, 'webhook_deleted');
    });
  }

  /** A new secret, shown once; the previous one keeps signing alongside it for 24 hours. */
  async rotateSecret(principal: Principal | null, id: string): Promise<{ webhook: WebhookView; secret: string }> {
    const em = this.deps.orm.em.fork();
    const endpoint = await this.own(em, principal, id);
    const secret = newWebhookSecret();
    const now = this.deps.clock.now();
    endpoint.previousSecret = endpoint.secret;
    endpoint.previousSecretExpiresAt = new Date(now.getTime() + SECRET_OVERLAP_SECONDS * 1000);
    endpoint.secret = this.deps.webhookSecrets.seal(endpoint.id, secret);
    endpoint.updatedAt = now;
    await em.flush();
    return { webhook: view(endpoint), secret };
  }

  /** An endpoint's deliveries, newest first. */
  async deliveries(principal: Principal | null, id: string, page: { limit?: number | null; offset?: number | null }): Promise<{ deliveries: DeliveryView[]; total: number }> {
    const em = this.deps.orm.em.fork();
    const endpoint = await this.own(em, principal, id);
    const limit = Math.min(Math.max(page.limit ?? 20, 1), DELIVERY_PAGE_MAX);
    const offset = Math.max(page.offset ?? 0, 0);
    const [rows, total] = await em.findAndCount(WebhookDelivery, { endpoint: endpoint.id }, { orderBy: { seq: 'desc' }, limit, offset, exclude: ['body'] });
    return { deliveries: rows.map(deliveryView), total };
  }

  /** Sends a delivery again (a new series of attempts), whatever became of it. */
  async redeliver(principal: Principal | null, id: string, deliveryId: string): Promise<DeliveryView> {
    const em = this.deps.orm.em.fork();
    const endpoint = await this.own(em, principal, id);
    const delivery = isUuid(deliveryId) ? await em.findOne(WebhookDelivery, { id: deliveryId, endpoint: endpoint.id }, { exclude: ['body'] }) : null;
    if (!delivery) throw DomainError.notFound('Delivery');
    if (!endpoint.enabled) throw new DomainError('conflict', 'This endpoint is disabled; enable it before redelivering');
    if (delivery.status === 'pending') throw new DomainError('conflict', 'This delivery is still pending; it will be attempted again on its schedule');
    Object.assign(delivery, {
      status: 'pending',
      attempts: 0,
      nextAttemptAt: this.deps.clock.now(),
      failedAt: null,
      lockedUntil: null,
    });
    await em.flush();
    this.deps.wakeSender();
    return deliveryView(delivery);
  }

  /** Queues a `webhook.test` event for the endpoint (whether or not it subscribed to it). */
  async sendTest(principal: Principal | null, id: string): Promise<DeliveryView> {
    const em = this.deps.orm.em.fork();
    const endpoint = await this.own(em, principal, id);
    if (!endpoint.enabled) throw new DomainError('conflict', 'This endpoint is disabled; enable it before sending a test');
    const now = this.deps.clock.now();
    const eventId = `evt_test_${randomUUID().replace(/-/g, '')}`;
    const body = JSON.stringify({
      type: 'webhook.test',
      id: eventId,
      timestamp: now.toISOString(),
      data: { webhook_id: endpoint.id },
    });
    const delivery = em.create(WebhookDelivery, {
      endpoint: endpoint.id,
      eventId,
      type: 'webhook.test',
      body,
      nextAttemptAt: now,
      createdAt: now,
    });
    await em.flush();
    this.deps.wakeSender();
    return deliveryView(delivery);
  }

  /**
   * An endpoint the caller manages: their own, or their team's when they are its admin. Any other
   * answers like a missing one.
   */
  private async own(em: EntityManager, principal: Principal | null, id: string): Promise<WebhookEndpoint> {
    const caller = requireAccess(principal, 'webhooks.get');
    const endpoint = isUuid(id) ? await em.findOne(WebhookEndpoint, { id }) : null;
    const manages = endpoint !== null && (endpoint.identity === caller.identityId || (await readerTeams(em, readerOf(caller))).get(endpoint.identity) === 'admin');
    if (!endpoint || !manages) throw DomainError.notFound('Webhook');
    return endpoint;
  }

  /** The team whose endpoints these are: its admins manage them. */
  private async team(em: EntityManager, caller: Principal, teamId: string, operation: TeamOperation): Promise<string> {
    await requireTeamRole(em, caller, teamId, operation);
    return teamId.toLowerCase();
  }

  /** A change to a team's endpoint goes into the team's activity log. */
  private async logTeamChange(em: EntityManager, principal: Principal | null, endpoint: WebhookEndpoint, action: 'webhook_changed' | 'webhook_deleted'): Promise<void> {
    if (!principal || endpoint.identity === principal.identityId) return;
    await appendTeamActivity(em, endpoint.identity, principal.identityId, action, { webhook_id: endpoint.id, url: endpoint.url }, this.deps.clock.now());
  }

  /** The URL's shape, and where it leads now (checked again at every delivery). */
  private async checkUrl(raw: string): Promise<string> {
    const url = this.deps.webhookTargets.parse(raw);
    await this.deps.webhookTargets.resolve(url, AbortSignal.timeout(5000));
    return url.href;
  }
}

function checkEvents(issues: IssueCollector, events: readonly string[]): WebhookEventType[] {
  if (events.length === 0) issues.add(['events'], 'Give at least one event type', 'too_short');
  events.forEach((type, index) => {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) issues.add(['events', index], `Must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`, 'invalid_enum');
  });
  if (new Set(events).size !== events.length) issues.add(['events'], 'Event types must not repeat', 'not_unique');
  return [...events] as WebhookEventType[];
}

function view(endpoint: WebhookEndpoint): WebhookView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    disabledAt: endpoint.disabledAt,
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

function deliveryView(delivery: Omit<WebhookDelivery, 'body'>): DeliveryView {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.type,
    recordId: delivery.recordId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    lastAttemptAt: delivery.lastAttemptAt,
    nextAttemptAt: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    deliveredAt: delivery.deliveredAt,
    failedAt: delivery.failedAt,
    createdAt: delivery.createdAt,
  };
}
