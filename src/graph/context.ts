import type { Principal } from '../domain/identity/principal.js';
import type { InitiatedVia } from '../domain/records/entities.js';
import type { RecordLifecycleEvent, SignatureProgressEvent } from '../domain/shared/events.js';
import type { RecordActivity } from './live.js';

/** Live streams for subscriptions; each authorizes the subscriber before it opens. */
export type LiveUpdates = {
  signatureProgress(principal: Principal | null, recordIdOrReference: string): Promise<AsyncIterable<SignatureProgressEvent>>;
  recordLifecycle(principal: Principal | null, recordIdOrReference: string): Promise<AsyncIterable<RecordLifecycleEvent>>;
  recordActivity(principal: Principal | null): Promise<AsyncIterable<RecordActivity>>;
};

/** Per-operation context: who calls, through which transport. Facades build the same context. */
export type GraphContext = {
  principal: Principal | null;
  /** How the operation reached the graph; recorded as `initiated_via` on new records. */
  via: InitiatedVia;
  requestId: string;
  live?: LiveUpdates;
};
