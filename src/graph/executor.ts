import type { ApolloServer } from '@apollo/server';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { GraphQLFormattedError } from 'graphql';
import type { GraphContext } from './context.js';

/** A GraphQL operation failed; carries the formatted errors (domain codes in `extensions.code`). */
export class GraphOperationError extends Error {
  constructor(readonly errors: readonly GraphQLFormattedError[]) {
    super(errors[0]?.message ?? 'GraphQL operation failed');
    this.name = 'GraphOperationError';
  }

  get code(): string {
    const code = this.errors[0]?.extensions?.code;
    return typeof code === 'string' ? code : 'internal_error';
  }
}

/**
 * Executes operations in-process against the one schema (no HTTP hop): the facades' way in.
 * The caller's principal travels in the context, exactly as over /graphql.
 */
export class GraphExecutor {
  constructor(private readonly apollo: ApolloServer<GraphContext>) {}

  async execute<TData, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TData, TVariables>,
    variables: TVariables,
    context: GraphContext,
  ): Promise<TData> {
    const response = await this.apollo.executeOperation<TData, TVariables>(
      { query: document, variables },
      { contextValue: context },
    );
    if (response.body.kind !== 'single') throw new Error('Incremental delivery is not used by the facades');
    const { data, errors } = response.body.singleResult;
    if (errors?.length) throw new GraphOperationError(errors);
    if (data == null) throw new GraphOperationError([{ message: 'No data', extensions: { code: 'internal_error' } }]);
    return data;
  }
}
