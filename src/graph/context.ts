import type { BulkSendView } from '../domain/bulk-sends/bulk-send-service.js';
import type { Principal } from '../domain/identity/principal.js';
import type { ExportView } from '../domain/exports/export-service.js';
import type { InitiatedVia } from '../domain/records/entities.js';
import type { RecordLifecycleEvent, SignatureProgressEvent } from '../domain/shared/events.js';

/** One entry of the activity feed: a lifecycle move or a ceremony step on a record. */
export type RecordActivity = {
  recordId: string;
  kind: 'lifecycle' | 'signature' | 'artifact';
  /** The lifecycle trigger, the ceremony event, or `<artifact>_<state>`. */
  event: string;
  status: string | null;
  participantId: string | null;
  at: string;
};

/** Live streams for subscriptions; each authorizes the subscriber before it opens. */
/** A live event with its cursor: a subscription given it as `after` resumes after that event (null from an older instance). */
export type Cursored<T> = T & { cursor: string | null };

export type LiveUpdates = {
  signatureProgress(principal: Principal | null, recordIdOrReference: string, after: string | null): Promise<AsyncIterable<Cursored<SignatureProgressEvent>>>;
  recordLifecycle(principal: Principal | null, recordIdOrReference: string, after: string | null): Promise<AsyncIterable<Cursored<RecordLifecycleEvent>>>;
  recordActivity(principal: Principal | null, after: string | null, teamId?: string | null): Promise<AsyncIterable<Cursored<RecordActivity>>>;
  bulkSendProgress(principal: Principal | null, bulkSendId: string): Promise<AsyncIterable<BulkSendView>>;
  /** An export's view, then each change of its progress (domain/exports). */
  exportProgress(principal: Principal | null, exportId: string): Promise<AsyncIterable<ExportView>>;
};

/** Per-operation context: who calls, through which transport. Facades build the same context. */
export type GraphContext = {
  principal: Principal | null;
  /** How the operation reached the graph; recorded as `initiated_via` on new records. */
  via: InitiatedVia;
  requestId: string;
  /** The caller's network address (limits on anonymous routes); absent for in-process callers. */
  clientAddress?: string | null;
  live?: LiveUpdates;
  /** The stored MCP session the call came through (/mcp only): where an MCP authentication grant is opened. */
  mcpSessionKey?: string | null;
};
