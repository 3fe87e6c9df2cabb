import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { TestApp } from './harness.js';

/**
 * An instance a subscription is opened on, with how many live listeners it holds now (each open
 * subscription is one or more, besides a constant few of the service's own): an
 * in-process test app is asked directly, a built process through its `rss_live_listeners`
 * gauge (it must run with `METRICS_TOKEN`).
 */
export type SubscribedInstance = Pick<TestApp, 'url' | 'app'> | { url: string; metricsToken: string };

async function subscriptionsOn(instance: SubscribedInstance): Promise<number> {
  if ('app' in instance) return instance.app.services.pubSub.subscriberCount;
  const response = await fetch(`${instance.url}/metrics`, { headers: { authorization: `Bearer ${instance.metricsToken}` } });
  if (response.status !== 200) throw new Error(`the instance's metrics answered ${response.status}`);
  const families = parsePrometheusTextFormat(await response.text()) as { name: string; metrics: { value?: string }[] }[];
  const value = families.find((family) => family.name === 'rss_live_listeners')?.metrics[0]?.value;
  if (value === undefined) throw new Error('the instance reports no rss_live_listeners');
  return Number(value);
}

/**
 * Opens a graphql-ws subscription on `instance` as the bearer `token` and collects its events (the
 * value of `field` in each result) or its errors. The protocol never says when a subscription has
 * started listening, so `ready` resolves once the instance holds more live listeners than
 * before it was asked for (an event from then on reaches it), or once the subscription is refused
 * or ends. Subscriptions on one instance are opened one after the other, so each count is its own.
 */
export function watchSubscription<T>(instance: SubscribedInstance, token: string, query: string, field: string, variables: Record<string, unknown>) {
  const events: T[] = [];
  const errors: unknown[] = [];
  let ended = false;
  let client: Client | null = null;
  const open = async () => {
    const before = await subscriptionsOn(instance);
    client = createClient({
      url: instance.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    client.subscribe<Record<string, T>>(
      { query, variables },
      {
        next: (result) => {
          if (result.errors) errors.push(...result.errors);
          const value = result.data?.[field];
          if (value !== undefined) events.push(value);
        },
        error: (error) => errors.push(error),
        complete: () => (ended = true),
      },
    );
    const deadline = Date.now() + 10_000;
    while (errors.length === 0 && !ended && (await subscriptionsOn(instance)) <= before) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the subscription to listen');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const ready = (opening.get(instance.url) ?? Promise.resolve()).then(open);
  opening.set(instance.url, ready.catch(() => undefined));
  const dispose = async () => {
    await ready.catch(() => undefined);
    await client?.dispose();
  };
  return { events, errors, ready, dispose };
}

/** The last subscription being opened on each instance (by URL): the next one opens after it. */
const opening = new Map<string, Promise<unknown>>();

/** Polls `check` until it holds, failing with `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
