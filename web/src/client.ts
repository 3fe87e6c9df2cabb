import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import { createClient as createWsClient } from 'graphql-ws';
import { SignOutDocument } from './graphql/generated';

/**
 * One GraphQL client per session: queries and mutations over HTTP with the bearer header,
 * subscriptions over graphql-ws on the same path with the bearer in the connection params.
 */
export function createGraphClient(token: string | null, onUnauthenticated: () => void): { client: Client; dispose: () => void } {
  const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
  const ws = createWsClient({
    url: wsUrl,
    lazy: true,
    retryAttempts: 20,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    shouldRetry: () => true,
    on: {
      closed: (event) => {
        if ((event as CloseEvent | undefined)?.code === 4403) onUnauthenticated();
      },
    },
  });
  const client = new Client({
    url: '/graphql',
    requestPolicy: 'cache-and-network',
    // POST only: Apollo's CSRF prevention refuses simple GET requests, and POST keeps variables out of URLs and logs.
    preferGetMethod: false,
    fetchOptions: (): RequestInit => (token ? { headers: { authorization: `Bearer ${token}` } } : {}),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401 && token) onUnauthenticated();
      return response;
    },
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => {
          const input = { ...request, query: request.query ?? '' };
          return {
            subscribe: (sink) => ({ unsubscribe: ws.subscribe(input, sink) }),
          };
        },
      }),
    ],
  });
  return { client, dispose: () => void ws.dispose() };
}

/**
 * Ends the session on the server before the page forgets it: from then on every instance refuses its
 * token, so a copy of it (another tab, a log, a shoulder) opens nothing. `everywhere` ends every session
 * of the person. A failure (the service unreachable) does not keep the person signed in here.
 */
export async function endSessionOnServer(client: Client, everywhere: boolean): Promise<void> {
  await client.mutation(SignOutDocument, { everywhere }, { requestPolicy: 'network-only' }).toPromise().catch(() => undefined);
}
