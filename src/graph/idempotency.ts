import { HeaderMap, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import { OperationTypeNode, type FormattedExecutionResult } from 'graphql';
import type { Logger } from 'pino';
import { IdempotencyStore, type IdempotencyClaim, inProgressMessage } from '../domain/idempotency/idempotency-store.js';
import { assignClaim } from '../domain/idempotency/claim-context.js';
import { DomainError } from '../domain/shared/errors.js';
import type { GraphContext } from './context.js';

/** Set on an answer that was stored for an earlier request with the same Idempotency-Key. */
const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** Errors that say "try again later": such an answer is not stored, so the retry runs again. */
const RETRYABLE_CODES = new Set(['internal_error', 'rate_limited', 'unavailable']);

/**
 * `Idempotency-Key` on GraphQL mutations over HTTP (the same store and rules as the REST routes): a
 * retry with the same key, document, variables and caller gets the stored result again with
 * `Idempotent-Replayed: true`; the key with another request answers `validation_error` (HTTP 422),
 * one that arrives while the first still runs `idempotency_key_in_use` (HTTP 409). Queries, and
 * in-process executions of the facades (which apply the key themselves), are not affected.
 */
export function idempotencyPlugin(store: IdempotencyStore, logger: Logger): ApolloServerPlugin<GraphContext> {
  return {
    async requestDidStart() {
      let claim: IdempotencyClaim | null = null;
      return {
        async responseForOperation(context) {
          const header = context.request.http?.headers.get('idempotency-key');
          if (header === undefined || context.operation.operation !== OperationTypeNode.MUTATION) return null;
          let key: string;
          try {
            key = IdempotencyStore.parseKey(header);
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
            return failure(422, error.message, { code: 'validation_error', issues: error.details.issues ?? [] });
          }
          const scope = IdempotencyStore.scopeOf(context.contextValue.principal, context.contextValue.clientAddress);
          const request = { query: context.source, variables: context.request.variables ?? {} };
          const claimed = await store.claim(scope, key, { transport: 'graphql', target: context.operationName ?? '', body: request });
          switch (claimed.outcome) {
            case 'mismatch':
              return failure(422, 'This Idempotency-Key was already used with a different request', {
                code: 'validation_error',
                issues: [{ path: ['idempotencyKey'], message: 'This Idempotency-Key was already used with a different request', type: 'idempotency_key_reused' }],
              });
            case 'in_progress':
              return failure(409, inProgressMessage(claimed.retryAfterSeconds), { code: 'idempotency_key_in_use', retryAfterSeconds: claimed.retryAfterSeconds });
            case 'replay': {
              const headers = new HeaderMap([[IDEMPOTENT_REPLAYED_HEADER, 'true']]);
              return { http: { status: claimed.answer.status, headers }, body: { kind: 'single', singleResult: claimed.answer.body as FormattedExecutionResult } };
            }
            case 'committed':
              // Its change committed and its answer was lost (a crash between the two): never run it again.
              return failure(409, 'The change of the request first sent with this Idempotency-Key was committed, but its answer was lost; read the record for its state', {
                code: 'conflict',
                ...(claimed.recordId ? { recordId: claimed.recordId } : {}),
              });
            case 'claimed':
              claim = claimed.claim;
              // The execution that follows runs in this request's slot (withClaimSlot, app.ts): its change marks the claim.
              assignClaim(claimed.claim.id);
              return null;
          }
        },
        async willSendResponse({ response }) {
          const claimed = claim;
          if (!claimed) return;
          claim = null;
          const status = response.http.status ?? 200;
          const result = response.body.kind === 'single' ? response.body.singleResult : null;
          const retryable = !result || status >= 500 || (result.errors ?? []).some((error) => RETRYABLE_CODES.has(String(error.extensions?.code)));
          try {
            if (retryable) await store.release(claimed);
            else await store.complete(claimed, { status, headers: {}, body: result });
          } catch (error) {
            logger.warn({ err: error }, 'idempotency key answer not stored');
          }
        },
      };
    },
  };
}

function failure(status: number, message: string, extensions: Record<string, unknown>): GraphQLResponse {
  return { http: { status, headers: new HeaderMap() }, body: { kind: 'single', singleResult: { errors: [{ message, extensions }] } } };
}
