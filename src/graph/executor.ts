import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { Kind, validate, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Graph } from './catalog/entry.js';
import type { GraphContext } from './context.js';
import { noTracing, type Tracing } from '../domain/shared/tracing.js';
import type { Instruments } from '../domain/shared/instruments.js';

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

/** Formats one error as the HTTP transport does (domain codes, nothing unexpected leaks). */
export type ErrorFormatter = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * Executes operations in-process against the one schema (no HTTP hop): the facades' way in.
 * The caller's principal travels in the context, exactly as over /graphql. The documents are the
 * catalog's own: validated once each against the schema and compiled to a function (graphql-jit),
 * then run directly (no request pipeline: no query hashing, no document store, no HTTP plugins),
 * with the errors formatted as the HTTP transport formats them.
 */
export class GraphExecutor {
  private readonly compiled = new WeakMap<object, CompiledQuery>();
  private readonly spanNames = new WeakMap<object, { name: string; attributes: Record<string, string> }>();
  private readonly operationNames = new WeakMap<object, string | null>();

  constructor(
    private readonly deps: {
      schema: GraphQLSchema;
      formatError: ErrorFormatter;
      /** Each operation in a span named after it (graphql-jit runs it: the graphql instrumentation never sees it). */
      tracing: Tracing;
      /** Each operation counted by name, transport and outcome (`rss_graphql_operations_total`). */
      instruments: Instruments;
    },
  ) {}

  async execute<TData, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TData, TVariables>,
    variables: TVariables,
    context: GraphContext,
  ): Promise<TData> {
    if (this.deps.tracing === noTracing) return this.run(document, variables, context);
    const { name, attributes } = this.spanNameOf(document);
    return this.deps.tracing.inSpan(name, attributes, () => this.run(document, variables, context));
  }

  private async run<TData, TVariables extends Record<string, unknown>>(
    document: TypedDocumentNode<TData, TVariables>,
    variables: TVariables,
    context: GraphContext,
  ): Promise<TData> {
    const operation = this.operationNameOf(document);
    let result: Awaited<ReturnType<CompiledQuery['query']>>;
    try {
      result = await this.compiledFor(document).query(undefined, context, variables);
    } catch (error) {
      this.deps.instruments.graphqlOperation(operation, context.via, 'internal_error');
      throw error;
    }
    if (result.errors?.length || result.data == null) {
      // Without data, the variables were refused before any field ran: the caller's input, as Apollo reports it.
      const requestError = result.data === undefined;
      const failure = result.errors?.length
        ? new GraphOperationError(
            result.errors.map((error) => {
              const formatted = error.toJSON();
              return this.deps.formatError(requestError ? { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } } : formatted, error);
            }),
          )
        : new GraphOperationError([{ message: 'No data', extensions: { code: 'internal_error' } }]);
      this.deps.instruments.graphqlOperation(operation, context.via, failure.code);
      throw failure;
    }
    this.deps.instruments.graphqlOperation(operation, context.via, 'ok');
    return result.data as TData;
  }

  /** The operation's name in a catalog document (null: anonymous), read once per document. */
  private operationNameOf(document: DocumentNode): string | null {
    let name = this.operationNames.get(document);
    if (name === undefined) {
      const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
      this.operationNames.set(document, (name = operation?.name?.value ?? null));
    }
    return name;
  }

  /** The operation's span name and attributes (its type and name, as the graphql instrumentation names them). */
  private spanNameOf(document: DocumentNode): { name: string; attributes: Record<string, string> } {
    let known = this.spanNames.get(document);
    if (known) return known;
    const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
    const type = operation?.operation ?? 'query';
    const operationName = operation?.name?.value;
    known = { name: operationName ? `${type} ${operationName}` : type, attributes: { 'graphql.operation.type': type, ...(operationName ? { 'graphql.operation.name': operationName } : {}) } };
    this.spanNames.set(document, known);
    return known;
  }

  /** The document validated and compiled to one function (graphql-jit), once per document. */
  private compiledFor(document: DocumentNode): CompiledQuery {
    let compiled = this.compiled.get(document);
    if (compiled) return compiled;
    const invalid = validate(this.deps.schema, document);
    if (invalid.length > 0) throw new Error(`A catalog document does not validate: ${invalid.map((error) => error.message).join('; ')}`);
    const made = compileQuery(this.deps.schema, document);
    if (!isCompiledQuery(made)) throw new Error(`A catalog document does not compile: ${made.errors?.map((error) => error.message).join('; ')}`);
    this.compiled.set(document, (compiled = made));
    return compiled;
  }

  /** The executor as a catalog `Graph` for one caller: every operation runs with this context. */
  bind(context: GraphContext): Graph {
    return (document, variables) => this.execute(document, variables, context);
  }
}
