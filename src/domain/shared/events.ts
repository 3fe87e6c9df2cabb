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

export interface DomainEvents {
  signatureProgress(event: SignatureProgressEvent): void;
}

export const noEvents: DomainEvents = { signatureProgress: () => undefined };
