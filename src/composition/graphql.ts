import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, OperationTypeNode, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { IdempotencyStore } from '../domain/idempotency/idempotency-store.js';
import { withClaimSlot } from '../domain/idempotency/claim-context.js';
import { budgetRefusal, checkedDocument, graphArmor, graphqlBudget, refuseDeepDocuments } from '../graph/armor.js';
import type { GraphAuthenticator } from '../graph/authenticate.js';
import type { GraphContext, LiveUpdates } from '../graph/context.js';
import type { ErrorFormatter } from '../graph/executor.js';
import { idempotencyPlugin } from '../graph/idempotency.js';
import { retryAfterPlugin } from '../graph/errors.js';
import { operationOutcomesPlugin } from '../graph/operation-outcomes.js';
import { jitGateway } from '../graph/jit-gateway.js';
import { noTracing, type Tracing } from '../domain/shared/tracing.js';
import { noInstruments, type Instruments } from '../domain/shared/instruments.js';
import { BODY_LIMITS, boundedBody, TOO_LARGE_MESSAGE } from '../graph/transport/body-limits.js';
import { ClientBudget } from '../graph/transport/client-budget.js';
import { sendGraphqlRefusal } from '../graph/transport/refusal.js';
import { graphqlOverHttp, keptGraphqlReadsEarly, type KeptGraphqlAnswer } from '../graph/transport/graphql-http.js';
import type { EarlyAnswers } from '../graph/transport/early-answers.js';
import type { AnswerCache } from '../domain/shared/answer-cache.js';
import { clientAddressResolver, guardedWebSocketServer } from '../graph/transport/websocket.js';
import { graphqlExplorer, graphqlExplorerOff } from '../web-ui.js';

export type GraphqlDeps = {
  schema: GraphQLSchema;
  config: Pick<Config, 'graphqlIntrospection' | 'graphqlOperationsPerMinute' | 'websocket'>;
  authenticator: GraphAuthenticator;
  idempotency: IdempotencyStore;
  live: LiveUpdates;
  formatError: ErrorFormatter;
  /** Operations counted by name and outcome, budget refusals by rule (metrics on). */
  instruments?: Instruments;
  /** Each operation's span (graphql-jit runs it where the graphql instrumentation cannot see). */
  tracing?: Tracing;
  /** Record reads' answers kept as sent, dropped with the record views (read-caches.ts); none: every operation runs. */
  keptRecordReads?: AnswerCache<KeptGraphqlAnswer> | null;
  /** Where kept record reads are answered before express (http.ts). */
  early?: EarlyAnswers;
  logger: Logger;
};

/** A subscription sent over HTTP gets a clear 400 naming the way to subscribe, not an internal error. */
const subscriptionsOverWebSocket: ApolloServerPlugin<GraphContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== OperationTypeNode.SUBSCRIPTION) return;
        throw new GraphQLError('Subscriptions are served over WebSocket: connect to /graphql with graphql-ws (subprotocol graphql-transport-ws) and subscribe there', {
          extensions: { code: 'validation_error', http: { status: 400 } },
        });
      },
    };
  },
};

/**
 * `/graphql` over HTTP (Apollo) and graphql-ws on the same path, with the same limits, budget and
 * error model on both. Returns the check of live sockets' credentials (after a revocation or merge)
 * and the stop.
 */
export async function mountGraphql(app: Express, server: Server, deps: GraphqlDeps): Promise<{ recheckCredentials: () => void; closeSubscriptions: () => Promise<void>; stop: () => Promise<void> }> {
  const { schema, config, authenticator, logger, formatError } = deps;
  const armor = graphArmor<GraphContext>({ introspection: config.graphqlIntrospection });
  // GraphQL operations per client address and minute, over HTTP and graphql-ws together (this instance's CPU).
  const instruments = deps.instruments ?? noInstruments;
  const graphqlOperations = new ClientBudget({ perMinute: config.graphqlOperationsPerMinute, refused: () => instruments.rateLimited('graphql_operations') });
  const ws = guardedWebSocketServer(server, '/graphql', config.websocket, clientAddressResolver(app.get('trust proxy fn') as (address: string, hop: number) => boolean), logger);
  const wsCleanup = useServer<Record<string, unknown>>(
    {
      schema,
      connectionInitWaitTimeout: config.websocket.initTimeoutMs,
      // The same limits as over HTTP, in the same order: nesting before parsing, tokens while parsing,
      // then depth, aliases, directives, cost and introspection; refusals carry the same codes.
      onSubscribe: (ctx, _id, payload) => {
        const { admitted, quota } = graphqlOperations.take(ws.clientAddressOf(ctx.extra.request));
        return admitted ? checkedDocument(schema, payload, armor) : [budgetRefusal(quota.resetSeconds)];
      },
      // The same error model as over HTTP: domain codes in extensions.code, nothing unexpected leaks.
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error.toJSON(), error)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map((error) => formatError(error.toJSON(), error)) } : undefined,
      // Presented but invalid credentials close the connection (4403) before any operation runs;
      // each operation then authenticates again, so a revoked key stops working mid-connection too.
      onConnect: async (ctx) => {
        try {
          await authenticator.fromConnectionParams(ctx.connectionParams ?? {});
        } catch (error) {
          if (error instanceof GraphQLError) return false;
          throw error;
        }
        const params = ctx.connectionParams ?? {};
        const presented = Object.keys(params).length > 0;
        const stillValid = async () => (await authenticator.fromConnectionParams(params).then((principal) => principal !== null, () => false));
        ws.watchOperations(ctx.extra.socket, () => Object.keys(ctx.subscriptions).length, presented ? stillValid : null);
        return true;
      },
      context: async (ctx) => ({
        principal: await authenticator.fromConnectionParams(ctx.connectionParams ?? {}),
        via: 'graphql' as const,
        requestId: randomUUID(),
        clientAddress: ws.clientAddressOf(ctx.extra.request),
        live: deps.live,
      }),
    },
    ws.wss,
  );
  ws.takeOverSocketErrors();

  const apollo = new ApolloServer<GraphContext>({
    // Apollo parses, validates and runs the plugins; the operation itself runs compiled by graphql-jit
    // (jit-gateway.ts), as the facades run the catalog's.
    gateway: jitGateway(schema, deps.tracing ?? noTracing),
    formatError,
    includeStacktraceInErrorResponses: false,
    // The process's stop (main.ts, app.ts) stops Apollo in its turn, after the HTTP drain: Apollo's own
    // SIGINT/SIGTERM handlers (installed unless NODE_ENV is test) stopped it at the signal, so every
    // GraphQL request of the drain answered 500 while REST still served.
    stopOnTerminationSignals: false,
    introspection: config.graphqlIntrospection,
    validationRules: armor.validationRules,
    parseOptions: armor.parseOptions,
    plugins: [
      ...armor.plugins,
      idempotencyPlugin(deps.idempotency, logger),
      retryAfterPlugin,
      ...(instruments === noInstruments ? [] : [operationOutcomesPlugin(instruments)]),
      subscriptionsOverWebSocket,
      // No HTTP cache hints are used (every answer is private to its caller): skip the per-field bookkeeping.
      ApolloServerPluginCacheControlDisabled(),
      // Not a federated subgraph: no traces to inline, and Apollo's protobuf code (some 360 KB) stays unloaded.
      ApolloServerPluginInlineTraceDisabled(),
      // Apollo's own landing page loads its sandbox from Apollo's CDN, which the service never does: a
      // browser gets the locally served explorer below instead, or a page saying it is off.
      ApolloServerPluginLandingPageDisabled(),
    ],
  });
  await apollo.start();

  // A person's browser opening /graphql gets GraphiQL, which needs introspection to know the schema;
  // without introspection, a page saying the explorer is off and which setting turns it on.
  app.get('/graphql', config.graphqlIntrospection ? graphqlExplorer() : graphqlExplorerOff());
  app.use(
    '/graphql',
    // A place for the Idempotency-Key claim the plugin makes once the document is parsed (claim-context.ts);
    // a request without the header makes none.
    (req, _res, next) => (req.headers['idempotency-key'] === undefined ? next() : withClaimSlot(next)),
    graphqlBudget(graphqlOperations),
    boundedBody(express.json, BODY_LIMITS.graphql, (res) => sendGraphqlRefusal(res, 413, TOO_LARGE_MESSAGE, { code: 'payload_too_large' })),
    refuseDeepDocuments,
    graphqlOverHttp({
      apollo,
      authenticate: (headers) => authenticator.fromHeaders(headers),
      context: (req, principal) => ({ principal, via: 'graphql', requestId: typeof req.id === 'string' ? req.id : randomUUID(), clientAddress: req.ip ?? null }),
      kept: deps.keptRecordReads,
      instruments,
    }),
  );
  if (deps.keptRecordReads && deps.early) {
    deps.early.register(
      keptGraphqlReadsEarly({
        kept: deps.keptRecordReads,
        budget: graphqlOperations,
        clientAddressOf: ws.clientAddressOf,
        authenticate: (headers) => authenticator.fromHeaders(headers),
        instruments,
        send: deps.early.send,
      }),
    );
  }
  return {
    recheckCredentials: () => void ws.recheckCredentials(),
    // WebSocket clients get 1001 "Going away" and reconnect elsewhere; the HTTP listener is drained by the stop (drain.ts).
    closeSubscriptions: async () => {
      ws.close();
      await wsCleanup.dispose();
    },
    // Only once no HTTP connection is left: a balancer may still send a request on a keep-alive
    // connection opened before the listener closed, and a stopped Apollo answers it 500.
    stop: () => apollo.stop(),
  };
}
