import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../identity/principal.js';
import type { Participant, SignedRecord } from '../../records/entities.js';
import type { MethodStep, SignatureExecution, SignatureMethod, SignatureMethodType } from '../entities.js';

export type MethodContext = {
  em: EntityManager;
  record: SignedRecord;
  participant: Participant;
  execution: SignatureExecution;
  method: SignatureMethod;
  principal: Principal;
  now: Date;
};

/**
 * A step as seen before its transaction opens: `em` is not in a transaction and `method` is the
 * method as last committed (null before its first start).
 */
export type StepPreview = {
  em: EntityManager;
  participant: Pick<Participant, 'id'>;
  method: Pick<SignatureMethod, 'status' | 'state'> | null;
  action: 'start' | 'submit' | 'refresh' | 'cancel';
  input: Record<string, unknown>;
  now: Date;
};

/** What a method step produced. `evidence` is hashed into the signature evidence when satisfied. */
export type MethodOutcome =
  | { status: 'pending'; step: MethodStep; state?: Record<string, unknown> }
  | { status: 'satisfied'; evidence: string; step?: MethodStep | null; state?: Record<string, unknown> }
  | { status: 'failed'; reason: string; state?: Record<string, unknown> };

/**
 * One signature method: a real proof of intent that authentication can never provide. Each adapter
 * validates its own input and throws domain errors for bad input (422) without changing state.
 */
export interface SignatureMethodAdapter {
  readonly type: SignatureMethodType;
  start(context: MethodContext, hints: Record<string, unknown>): Promise<MethodOutcome>;
  submit(context: MethodContext, input: Record<string, unknown>): Promise<MethodOutcome>;
  /** Asynchronous methods re-check while pending; synchronous ones answer with their current state. */
  refresh?(context: MethodContext): Promise<MethodOutcome>;
  /**
   * Work that must stay counted even when the step then fails (attempts, outside fetches): runs
   * before the step's transaction, so that it never needs a second connection while one is held.
   * Called for submits and refreshes; starts are counted by the service (its per-method start limit).
   */
  count?(preview: StepPreview): Promise<void>;
  /** Whether the method can serve this signer at all (listed in the execution only then). Default: yes. */
  appliesTo?(signer: Pick<MethodContext, 'record' | 'participant' | 'principal'>): boolean;
}
