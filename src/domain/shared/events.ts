import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Domain events. A change writes its events in its own transaction (the record's audit trail, the
 * seal of a record that moved to `sealed`, and the outbox); a dispatcher delivers them after the
 * commit to the subscribers (the GraphQL PubSub, the job queue). An event of a transaction that
 * rolls back is never delivered; one that committed is delivered even if the process dies first.
 */
export type SignatureProgressEvent = {
  recordId: string;
  executionId: string;
  participantId: string;
  event: 'execution_started' | 'method_started' | 'method_satisfied' | 'method_pending' | 'method_failed' | 'method_cancelled' | 'finalized';
  methodType: string | null;
  executionStatus: string;
  recordVersion: number;
  satisfiedMethodCount: number;
  requiredSignatureMethodCount: number;
  canFinalize: boolean;
  /** The record's status when the step happened (before any move the step causes); absent in events written before it was recorded. */
  recordStatus?: string;
  at: string;
};

/** A record moved through its lifecycle (a row of the transition table fired, or a participant moved). */
export type RecordLifecycleEvent = {
  recordId: string;
  trigger: string;
  fromStatus: string;
  toStatus: string;
  participantId: string | null;
  recordVersion: number;
  at: string;
};

/** A sealed record's artifact (sealed PDF, share card) now exists, or its chain record changed. */
export type RecordArtifactEvent = {
  recordId: string;
  artifact: 'sealed_pdf' | 'share_card' | 'blockchain';
  /** For `blockchain`: pending, retrying or confirmed. */
  state: string;
  at: string;
};

export type DomainEvent =
  | { type: 'signature_progress'; data: SignatureProgressEvent }
  | { type: 'record_lifecycle'; data: RecordLifecycleEvent }
  | { type: 'record_artifact'; data: RecordArtifactEvent };

export const lifecycle = (data: RecordLifecycleEvent): DomainEvent => ({ type: 'record_lifecycle', data });
export const signatureProgress = (data: SignatureProgressEvent): DomainEvent => ({ type: 'signature_progress', data });
export const recordArtifact = (data: RecordArtifactEvent): DomainEvent => ({ type: 'record_artifact', data });

/** The move that seals a record (its artifacts and its anchor are made after it). */
export function isSealingEvent(event: DomainEvent): event is { type: 'record_lifecycle'; data: RecordLifecycleEvent } {
  return event.type === 'record_lifecycle' && event.data.toStatus === 'sealed' && event.data.fromStatus !== 'sealed';
}

export interface DomainEvents {
  /** In the caller's transaction: audit trail, seal, outbox. Call it before the commit. */
  write(em: EntityManager, events: readonly DomainEvent[]): Promise<void>;
  /** After the commit: caches of what changed are dropped. (When the dispatcher is woken is the journal's to say: `EventJournal`.) */
  committed(): void;
}
