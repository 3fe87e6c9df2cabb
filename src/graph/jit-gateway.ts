import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { noTracing, type Tracing } from '../domain/shared/tracing.js';

/** Apollo's gateway, as its options name it (its package is Apollo's own dependency, not ours). */
type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;

/** How a document's operation runs: compiled by graphql-jit, or graphql-js's `execute` (introspection). */
type Runner = {
  run: (context: unknown, variables: Record<string, unknown>) => Promise<ExecutionResult> | ExecutionResult;
  /** Its own span, for graphql-jit's runs (graphql-js's `execute` is traced by the graphql instrumentation). */
  span: { name: string; attributes: Record<string, string> } | null;
  /** Run by graphql-js because the document was new: it is compiled when it comes again. */
  interpreted?: true;
};

/**
 * `/graphql`'s operations run as the facades run the catalog's (GraphExecutor): compiled once per
 * parsed document by graphql-jit, then called. Apollo keeps the request pipeline (parsing with its
 * document store, validation with the armor's rules, the plugins, error formatting, HTTP statuses);
 * only the execution step is this executor, plugged in as Apollo's gateway executor. Apollo's
 * document store hands back the same parsed document for the same query text, so the compiled
 * query is kept beside it (a WeakMap: dropped with the document).
 *
 * A document is compiled the second time it comes, not the first: clients send the same few documents
 * again and again, while compiling costs several times parsing and validating, so a stream of
 * documents each sent once (a scan, an attack) runs on graphql-js and costs no more than it did.
 *
 * Kept as graphql-js answers: introspection (run by graphql-js's `execute`), variables that do not
 * coerce (no data, `BAD_USER_INPUT`, HTTP 400 as Apollo answers them). With tracing on, each
 * operation runs in a span named as the graphql instrumentation names its own (graphql-jit runs
 * where that instrumentation cannot see).
 */
export function jitGateway(schema: GraphQLSchema, tracing: Tracing = noTracing): GatewayInterface {
  const runners = new WeakMap<DocumentNode, Map<string, Runner>>();

  const runnerFor = (document: DocumentNode, operationName: string | null, source: string, type: string): Runner | ExecutionResult => {
    let byName = runners.get(document);
    if (!byName) runners.set(document, (byName = new Map<string, Runner>()));
    const key = operationName ?? '';
    const known = byName.get(key);
    if (known && !known.interpreted) return known;
    const span = { name: operationName ? `${type} ${operationName}` : type, attributes: { 'graphql.operation.type': type, ...(operationName ? { 'graphql.operation.name': operationName } : {}) } };
    const interpret = (context: unknown, variables: Record<string, unknown>) => execute({ schema, document, contextValue: context, variableValues: variables, operationName });
    let runner: Runner;
    if (/__schema|__type\b/.test(source)) {
      runner = { span: null, run: interpret };
    } else if (!known) {
      runner = { span: null, run: interpret, interpreted: true };
    } else {
      const compiled = compileQuery(schema, document, operationName ?? undefined);
      if (!isCompiledQuery(compiled)) return compiled;
      const query: CompiledQuery = compiled;
      runner = { span, run: (context, variables) => query.query(undefined, context, variables) };
    }
    byName.set(key, runner);
    return runner;
  };

  const executor: GatewayExecutor = async (requestContext) => {
    const { document, operationName, source, operation, context, request } = requestContext;
    const runner = runnerFor(document, operationName, source, operation.operation);
    if (!('run' in runner)) return { errors: (runner.errors ?? []).map((error) => asApolloError(error, null)) };
    const variables = request.variables ?? {};
    const { span } = runner;
    const result = await (tracing === noTracing || span === null ? runner.run(context, variables) : tracing.inSpan(span.name, span.attributes, async () => runner.run(context, variables)));
    if (!result.errors?.length) return result;
    // No data: the variables were refused before any field ran, the caller's input (Apollo: BAD_USER_INPUT, 400).
    const refused = result.data === undefined;
    return { ...result, errors: result.errors.map((error) => asApolloError(error, refused ? 'BAD_USER_INPUT' : null)) };
  };

  let loaded: ((schemaContext: { apiSchema: GraphQLSchema; coreSupergraphSdl: string }) => void) | null = null;
  return {
    onSchemaLoadOrUpdate(callback) {
      loaded = callback;
      return () => void (loaded = null);
    },
    async load() {
      // Not a supergraph: the SDL is only read by Apollo's schema reporting, which this service never turns on.
      loaded?.({ apiSchema: schema, coreSupergraphSdl: '' });
      return { executor };
    },
    async stop() {
      loaded = null;
    },
  };
}

/**
 * graphql-jit's errors are GraphQLErrors by their prototype but carry no `extensions` object unless
 * the thrown error had one, which Apollo's error formatting reads: each is answered as the
 * graphql-js error it stands for (message, locations, path, the thrown error as its original).
 */
function asApolloError(error: GraphQLError, code: string | null): GraphQLError {
  const extensions = { ...error.extensions, ...(code && !error.extensions?.code ? { code } : {}) };
  const copy = new GraphQLError(error.message, { path: error.path, originalError: error.originalError ?? undefined, extensions });
  if (error.locations) Object.assign(copy, { locations: error.locations });
  return copy;
}
