import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { DomainOperation } from '../../domain/identity/operation-access.js';

/** Executes one typed GraphQL document in-process with the caller's context (see GraphExecutor.bind). */
export type Graph = <TData, TVariables extends Record<string, unknown>>(
  document: TypedDocumentNode<TData, TVariables>,
  variables: TVariables,
) => Promise<TData>;

/**
 * One operation of the catalog, independent of any transport: the GraphQL document it executes,
 * how its variables are made from a transport-neutral input (camelCase, the domain's words), and
 * how its result is taken from the data. A REST route and an MCP tool bind the same entry.
 */
export type CatalogEntry<TData, TVariables extends Record<string, unknown>, TInput, TResult> = {
  /** The domain operation it runs: its access (public, session, scope) is declared there, once. */
  readonly name: DomainOperation;
  readonly document: TypedDocumentNode<TData, TVariables>;
  readonly variables: (input: TInput) => TVariables;
  readonly result: (data: TData) => TResult;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the existential "some entry" of heterogeneous tables
export type AnyCatalogEntry = CatalogEntry<any, any, any, any>;
export type InputOf<E> = E extends CatalogEntry<infer _D, infer _V, infer I, infer _R> ? I : never;
export type ResultOf<E> = E extends CatalogEntry<infer _D, infer _V, infer _I, infer R> ? R : never;

/** An entry whose input is its variables (most are: the GraphQL arguments already speak the domain's words). */
export function entry<TData, TVariables extends Record<string, unknown>, TResult>(
  name: DomainOperation,
  document: TypedDocumentNode<TData, TVariables>,
  result: (data: TData) => TResult,
): CatalogEntry<TData, TVariables, TVariables, TResult>;
export function entry<TData, TVariables extends Record<string, unknown>, TInput, TResult>(
  name: DomainOperation,
  document: TypedDocumentNode<TData, TVariables>,
  result: (data: TData) => TResult,
  variables: (input: TInput) => TVariables,
): CatalogEntry<TData, TVariables, TInput, TResult>;
export function entry<TData, TVariables extends Record<string, unknown>, TInput, TResult>(
  name: DomainOperation,
  document: TypedDocumentNode<TData, TVariables>,
  result: (data: TData) => TResult,
  variables?: (input: TInput) => TVariables,
): CatalogEntry<TData, TVariables, TInput, TResult> {
  return { name, document, result, variables: variables ?? ((input) => input as unknown as TVariables) };
}

/** Runs an entry: variables from the input, one in-process execution, the result from the data. */
export async function runEntry<TData, TVariables extends Record<string, unknown>, TInput, TResult>(
  graph: Graph,
  operation: CatalogEntry<TData, TVariables, TInput, TResult>,
  input: TInput,
): Promise<TResult> {
  return operation.result(await graph(operation.document, operation.variables(input)));
}
