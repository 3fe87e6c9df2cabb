import type { Writable } from 'node:stream';
import { snakeKeys } from '../graph/transport/case.js';
import { runEntry, type AnyCatalogEntry, type Graph, type InputOf, type ResultOf } from '../graph/catalog/index.js';
import type { IssueLocation } from './errors.js';
import type { HttpMethod, RouteSpec } from './openapi/operation.js';
import { CACHE_CONTROL } from '../domain/shared/cache-policy.js';

/** What a REST handler sees of the request, after contract validation. */
export type RestRequest = {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The JSON body, pruned to the contract's properties, keys in camelCase. */
  input: Record<string, unknown>;
  /** Request headers (names in lower case), for operations whose contract reads one. */
  headers: Record<string, string | string[] | undefined>;
  /** The JSON body exactly as sent, for opaque payloads whose keys belong to another platform. */
  body: unknown;
  /** A text body (text/csv) as sent, on the routes whose contract takes one; then `input` and `body` are empty. */
  text?: string | undefined;
};

/**
 * A JSON body, a file (its bytes, sent as they are with the headers given), or a stream (written into
 * the response as it is made, under its backpressure: an export's ZIP).
 */
export type RestReply = { status: number; body?: unknown; file?: Buffer; stream?: (out: Writable) => Promise<void>; headers?: Record<string, string> };

/**
 * What the composition root gives the routes that answer without the catalog: the probes, an export's
 * ZIP stream, and the messenger inbox whose secret guards its webhook.
 */
export type RestServices = {
  /** Each dependency's state, answered within a deadline (a hung database is `timeout`, not a hung probe). */
  readiness: () => Promise<{ ready: boolean; checks: Record<string, string> }>;
  mcpDiagnostics: () => Promise<Record<string, unknown>>;
  /**
   * An export's ZIP by its single-use link (domain/exports): redeemed, then streamed. The one download
   * that cannot pass through the catalog: GraphQL answers whole values, and a ZIP of 10,000 sealed
   * records is written as it is read. The ticket is the proof, as for the card and PDF tickets.
   */
  exportZip: (token: string) => Promise<{ filename: string; write: (out: Writable) => Promise<void> }>;
  messenger: { authorize(secret: string): void };
};

/** What a route runs with besides the request: the success status its contract declares, and the services. */
type RunContext = { status: number; services: RestServices };

/**
 * How a REST route runs: the catalog entry it executes (none for the meta routes, which answer without
 * GraphQL), where its validation issues point, and the run itself. Who may call it is the declared
 * access of that entry's domain operation, stated in the contract's `security` (see router.ts accessOf).
 */
export type RestOperation = {
  operation: AnyCatalogEntry | null;
  issueLocation?: IssueLocation;
  /** Checked before the body is read (a webhook's secret): throws a DomainError to refuse. */
  guard?: (request: Pick<RestRequest, 'headers' | 'query'>, services: RestServices) => void;
  run: (request: RestRequest, graph: Graph, context: RunContext) => Promise<RestReply>;
};

/** One REST route, declared once: its OpenAPI operation and, beside it, what it runs. */
export type RestRoute = { method: HttpMethod; path: string; spec: RouteSpec; runs: RestOperation };

export const route = (method: HttpMethod, path: string, { runs, ...spec }: RouteSpec & { runs: RestOperation }): RestRoute => ({ method, path, spec, runs });

type RestBinding<E extends AnyCatalogEntry> = {
  /** The entry's input from the request (path, query and camelCase body). */
  input: (request: RestRequest) => InputOf<E>;
  /** The contract's body from the entry's result (camelCase; converted to snake_case here). Default: the result. */
  body?: (result: ResultOf<E>) => unknown;
  issueLocation?: IssueLocation;
  /** The whole reply from the result, for routes that answer a file rather than JSON. */
  reply?: (result: ResultOf<E>) => RestReply;
  /** The answer carries a secret (a token, a key): never stored by a cache. */
  secret?: boolean;
  guard?: RestOperation['guard'];
};

/**
 * Runs a catalog entry with the request's input and answers with the contract's success status (204
 * without a body): the whole of most routes.
 */
export function bind<E extends AnyCatalogEntry>(operation: E, http: RestBinding<E>): RestOperation {
  return {
    operation,
    issueLocation: http.issueLocation,
    guard: http.guard,
    run: async (request, graph, { status }) => {
      const result = (await runEntry(graph, operation, http.input(request))) as ResultOf<E>;
      if (http.reply) return http.reply(result);
      const headers: Record<string, string> = http.secret ? { 'Cache-Control': CACHE_CONTROL.secret } : {};
      if (status === 204) return { status, headers };
      return { status, headers, body: snakeKeys(http.body ? http.body(result) : result) };
    },
  };
}
