import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import type { Instruments } from '../domain/shared/instruments.js';
import type { GraphContext } from './context.js';

/**
 * Counts each operation answered over `/graphql` (HTTP) by its name and outcome: `ok`, or the code of
 * its first error as the error formatter answered it. In-process operations (the REST and MCP
 * facades) are counted by the GraphExecutor. One listener serves every request.
 */
export function operationOutcomesPlugin(instruments: Instruments): ApolloServerPlugin<GraphContext> {
  const listener: GraphQLRequestListener<GraphContext> = {
    async willSendResponse({ operationName, response }) {
      const errors = response.body.kind === 'single' ? response.body.singleResult.errors : response.body.initialResult.errors;
      const code = errors?.[0]?.extensions?.code;
      instruments.graphqlOperation(operationName ?? null, 'graphql', !errors?.length ? 'ok' : typeof code === 'string' ? code : 'internal_error');
    },
  };
  return { requestDidStart: async () => listener };
}
