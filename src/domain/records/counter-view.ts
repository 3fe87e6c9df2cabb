import type { CounterProposal } from './entities.js';

/** A counter-proposal as readers see it (its own file, so record views need not import the service). */
export type CounterView = {
  id: string;
  agreementId: string;
  status: CounterProposal['status'];
  proposedByContactPointId: string;
  /** The participant row that proposed it (not exposed: it decides who may withdraw). */
  proposedByParticipantId: string;
  rawInput: string | null;
  assistedText: string | null;
  proposedBody: string;
  diffSummary: string | null;
  resolvedBody: string | null;
  createdAt: Date;
  resolvedAt: Date | null;
};

export function toCounterView(counter: CounterProposal): CounterView {
  return {
    id: counter.id,
    agreementId: counter.record.id,
    status: counter.status,
    proposedByContactPointId: counter.proposedByContactPointId,
    proposedByParticipantId: counter.proposedBy.id,
    rawInput: counter.rawInput,
    assistedText: counter.assistedText,
    proposedBody: counter.proposedBody,
    diffSummary: counter.diffSummary,
    resolvedBody: counter.resolvedBody,
    createdAt: counter.createdAt,
    resolvedAt: counter.resolvedAt,
  };
}
