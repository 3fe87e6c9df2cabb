import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { IssueLocation } from './errors.js';

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
};

export type RestReply = { status: number; body?: unknown; headers?: Record<string, string> };

export type Graph = <TData, TVariables extends Record<string, unknown>>(
  document: TypedDocumentNode<TData, TVariables>,
  variables: TVariables,
) => Promise<TData>;

/**
 * One REST operation: which credentials it reads, where its validation issues point, and a few
 * lines that execute one GraphQL document and map the result to the contract's JSON.
 */
export type RestOperation = {
  /** `public` routes ignore credentials entirely. */
  access: 'public' | 'authenticated';
  issueLocation?: IssueLocation;
  run: (request: RestRequest, graph: Graph) => Promise<RestReply>;
};
