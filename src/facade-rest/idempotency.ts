import type { Logger } from 'pino';
import { IdempotencyStore, inProgressMessage } from '../domain/idempotency/idempotency-store.js';
import { withinClaim } from '../domain/idempotency/claim-context.js';
import type { Principal } from '../domain/identity/principal.js';
import { DomainError } from '../domain/shared/errors.js';
import { restError, validationError, type RestError } from './errors.js';
import type { RestReply } from './operation.js';

/** Set on an answer that was stored for an earlier request with the same Idempotency-Key. */
const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export type IdempotentRequest = {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (canonicalized for the fingerprint: key order and spacing do not count). */
  body: unknown;
  principal: Principal | null;
  clientAddress: string | null;
};

/**
 * Runs a mutating REST request under its `Idempotency-Key` (when it sends one): a retry with the same
 * key and request replays the stored status, headers and body (with `Idempotent-Replayed: true`);
 * the same key with another request answers 422, and one that arrives while the first still runs 409.
 * Answers worth retrying (5xx, 429) are not stored: the next try runs again, unless the change had
 * committed (marked in its own transaction): then the next try answers from the record's state, as
 * the route answers when it has one, and never runs the change again.
 */
export async function idempotently(
  store: IdempotencyStore,
  request: IdempotentRequest,
  run: () => Promise<RestReply | RestError>,
  logger: Logger,
  /** The answer a committed change would have had, rebuilt from its record's state now (null: the route cannot). */
  replay: (recordId: string) => Promise<RestReply | null> = async () => null,
): Promise<RestReply | RestError> {
  const header = request.headers['idempotency-key'];
  if (!MUTATING.has(request.method) || header === undefined) return run();
  let key: string;
  try {
    key = IdempotencyStore.parseKey(Array.isArray(header) ? header.join(', ') : header);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return headerIssue(error.message, 'idempotency_key_invalid');
  }
  const scope = IdempotencyStore.scopeOf(request.principal, request.clientAddress);
  const query = Object.entries(request.query).map(([name, value]): [string, string] => [name, String(value)]);
  const target = `${request.method} ${request.path}?${new URLSearchParams(query.sort()).toString()}`;
  const claimed = await store.claim(scope, key, { transport: 'rest', target, body: request.body ?? null });
  switch (claimed.outcome) {
    case 'mismatch':
      return headerIssue('This Idempotency-Key was already used with a different request', 'idempotency_key_reused');
    case 'in_progress':
      return restError('idempotency_key_in_use', inProgressMessage(claimed.retryAfterSeconds), { retryAfterSeconds: claimed.retryAfterSeconds });
    case 'replay': {
      const { status, headers, body } = claimed.answer;
      return { status, body, headers: { ...headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' } };
    }
    case 'committed': {
      // The change committed and its answer was lost (a crash between the two): never run it again.
      const rebuilt = claimed.recordId ? await replay(claimed.recordId) : null;
      if (rebuilt) return { ...rebuilt, headers: { ...rebuilt.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' } };
      return restError('conflict', 'The change of the request first sent with this Idempotency-Key was committed, but its answer was lost; read the resource for its state');
    }
    case 'claimed':
      break;
  }
  const { claim } = claimed;
  let reply: RestReply | RestError;
  try {
    reply = await withinClaim(claim.id, run);
  } catch (error) {
    await store.release(claim).catch((releaseError: unknown) => logger.warn({ err: releaseError }, 'idempotency key not released'));
    throw error;
  }
  try {
    if (reply.status >= 500 || reply.status === 429 || ('file' in reply && reply.file)) await store.release(claim);
    else await store.complete(claim, { status: reply.status, headers: reply.headers ?? {}, body: reply.body });
  } catch (error) {
    // The change is done and its answer goes out; a retry after the lease runs it again.
    logger.warn({ err: error }, 'idempotency key answer not stored');
  }
  return reply;
}

function headerIssue(msg: string, type: string): RestError {
  return validationError([{ loc: ['header', 'Idempotency-Key'], msg, type }]);
}
