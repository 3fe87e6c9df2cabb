/**
 * Domain events that other processes may watch (the GraphQL subscriptions). The domain only
 * announces; the graph layer carries them across instances.
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

export interface DomainEvents {
  signatureProgress(event: SignatureProgressEvent): void;
  recordLifecycle(event: RecordLifecycleEvent): void;
}
