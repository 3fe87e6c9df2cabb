import type { Writable } from 'node:stream';
import { snakeKeys } from '../graph/transport/case.js';
import { runEntry, type AnyCatalogEntry, type Graph, type InputOf, type ResultOf } from '../graph/catalog/index.js';
import type { IssueLocation } from './errors.js';
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
 * One REST route: the catalog entry it executes (none for the meta routes, which answer without
 * GraphQL), where its validation issues point, and how it runs. Who may call it is the contract's
 * `security` (see router.ts accessOf), never repeated here.
 */
export type RestOperation = {
  operation: AnyCatalogEntry | null;
  issueLocation?: IssueLocation;
  run: (request: RestRequest, graph: Graph) => Promise<RestReply>;
};

export type RestBinding<E extends AnyCatalogEntry> = {
  /** The entry's input from the request (path, query and camelCase body). */
  input: (request: RestRequest) => InputOf<E>;
  /** 200 unless said; 204 answers without a body. */
  status?: 200 | 201 | 202 | 204;
  /** The contract's body from the entry's result (camelCase; converted to snake_case here). Default: the result. */
  body?: (result: ResultOf<E>) => unknown;
  issueLocation?: IssueLocation;
  /** The whole reply from the result, for routes that answer a file rather than JSON. */
  reply?: (result: ResultOf<E>) => RestReply;
  /** The answer carries a secret (a token, a key): never stored by a cache. */
  secret?: boolean;
};

/** Binds an operationId to a catalog entry plus its HTTP details: the whole of a REST route. */
export function bind<E extends AnyCatalogEntry>(operation: E, http: RestBinding<E>): RestOperation {
  const status = http.status ?? 200;
  return {
    operation,
    issueLocation: http.issueLocation,
    run: async (request, graph) => {
      const result = (await runEntry(graph, operation, http.input(request))) as ResultOf<E>;
      if (http.reply) return http.reply(result);
      const headers: Record<string, string> = http.secret ? { 'Cache-Control': CACHE_CONTROL.secret } : {};
      if (status === 204) return { status, headers };
      return { status, headers, body: snakeKeys(http.body ? http.body(result) : result) };
    },
  };
}
