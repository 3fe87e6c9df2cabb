import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import './graphql-explorer.css';
import { createGraphiQLFetcher, type Storage as GraphiQLStorage } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const endpoint = new URL('/graphql', location.href);
const sockets = new URL(endpoint);
sockets.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';
// Queries and mutations over HTTP, subscriptions over graphql-ws on the same path; the headers pane's
// values (an Authorization header) go with each request and as the socket's connection params.
const fetcher = createGraphiQLFetcher({ url: endpoint.href, subscriptionUrl: sockets.href });

/** What a new tab shows: whom the explorer acts as, and how to change that. */
const FIRST_QUERY = `# Queries and mutations go to this service's /graphql over HTTP, subscriptions over graphql-ws.
# To act as yourself, put {"Authorization": "Bearer <token>"} or {"X-API-Key": "<key>"} under Headers.
# Headers stay in this browser tab: closing it forgets them.
{
  authenticationStatus {
    authenticated
    authMethod
    scopes
  }
}
`;

/**
 * GraphiQL keeps its tabs and history, headers included (a bearer token among them), in this tab's
 * sessionStorage, as the web UI keeps its session: never in localStorage. Its "clear storage" clears its own keys.
 */
const tabStorage: GraphiQLStorage = {
  getItem: (key) => sessionStorage.getItem(key),
  setItem: (key, value) => sessionStorage.setItem(key, value),
  removeItem: (key) => sessionStorage.removeItem(key),
  clear: () => Object.keys(sessionStorage).filter((key) => key.startsWith('graphiql:')).forEach((key) => sessionStorage.removeItem(key)),
  get length() {
    return sessionStorage.length;
  },
};

const root = document.getElementById('graphiql');
if (!root) throw new Error('no #graphiql element');
createRoot(root).render(
  <StrictMode>
    <GraphiQL fetcher={fetcher} storage={tabStorage} defaultQuery={FIRST_QUERY} />
  </StrictMode>,
);
