import { BaseNotificationChannel, toJobId, type JobNotification } from 'agenda';
import type { PubSub } from 'type-graphql';

/** The PubSub topic of "a job was saved and may be due" wake-ups. */
export const JOBS_SAVED = 'JOBS_SAVED';

type Wire = { jobId: string; jobName: string; nextRunAt: string | null; priority: number; timestamp: string; source: string | null };

/**
 * Agenda's cross-instance wake-ups ("a job was saved: look now, not at the next poll") over the
 * service's one LISTEN connection, the PubSub's, which reconnects with backoff when the server drops
 * it. The PostgreSQL backend's own channel would hold a second LISTEN connection whose loss (a server
 * restart: 57P01) it emits as an `'error'` event nobody can safely handle, which ends the process.
 * Wake-ups lost while the connection is down cost only latency: every instance still polls
 * (`processEvery`).
 */
export class PubSubJobChannel extends BaseNotificationChannel {
  private events: AsyncIterator<unknown> | null = null;

  constructor(private readonly pubSub: PubSub) {
    super({ reconnect: { enabled: false } });
  }

  async connect(): Promise<void> {
    if (this.events) return;
    const events = this.pubSub.subscribe(JOBS_SAVED)[Symbol.asyncIterator]();
    this.events = events;
    void (async () => {
      for (let next = await events.next(); !next.done; next = await events.next()) {
        const notification = parse(next.value);
        if (notification) await this.notifyHandlers(notification);
      }
    })();
    this.setState('connected');
  }

  async disconnect(): Promise<void> {
    const events = this.events;
    this.events = null;
    this.setState('disconnected');
    await events?.return?.();
    this.handlers.clear();
    this.stateHandlers.clear();
  }

  async publish(notification: JobNotification): Promise<void> {
    const wire: Wire = {
      jobId: String(notification.jobId),
      jobName: notification.jobName,
      nextRunAt: notification.nextRunAt?.toISOString() ?? null,
      priority: notification.priority,
      timestamp: notification.timestamp.toISOString(),
      source: notification.source ?? null,
    };
    this.pubSub.publish(JOBS_SAVED, wire);
  }
}

function parse(value: unknown): JobNotification | null {
  const wire = value as Partial<Wire> | null;
  if (!wire || typeof wire.jobId !== 'string' || typeof wire.jobName !== 'string' || typeof wire.timestamp !== 'string') return null;
  return {
    jobId: toJobId(wire.jobId),
    jobName: wire.jobName,
    nextRunAt: wire.nextRunAt ? new Date(wire.nextRunAt) : null,
    priority: typeof wire.priority === 'number' ? wire.priority : 0,
    timestamp: new Date(wire.timestamp),
    ...(wire.source ? { source: wire.source } : {}),
  };
}
