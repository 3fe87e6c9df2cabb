import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * Opens a graphql-ws subscription as the bearer `token` and collects its events (the value of
 * `field` in each result) or its errors. `ready` resolves shortly after the connection is acknowledged.
 */
export function watchSubscription<T>(url: string, token: string, query: string, field: string, variables: Record<string, unknown>) {
  const events: T[] = [];
  const errors: unknown[] = [];
  const client: Client = createClient({
    url: url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  let acknowledged!: () => void;
  const ready = new Promise<void>((resolve) => (acknowledged = resolve));
  client.on('connected', () => setTimeout(acknowledged, 300));
  client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) errors.push(...result.errors);
        const value = result.data?.[field];
        if (value !== undefined) events.push(value);
      },
      error: (error) => errors.push(error),
      complete: () => undefined,
    },
  );
  return { events, errors, ready, dispose: () => client.dispose() };
}

/** Polls `check` until it holds, failing with `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
