import type { EntityManager } from '@mikro-orm/postgresql';
import type { SignedRecord } from '../records/entities.js';
import { SignatureExecution, SignatureMethod } from './entities.js';
import { canFinalize, satisfiedCount, toIdenticonView, type IdenticonView } from './execution-view.js';

export type SignatureSummary = {
  status: 'in_progress' | 'finalized';
  satisfiedMethodCount: number;
  canFinalize: boolean;
  identicon: IdenticonView | null;
};

/**
 * Each participant's signature state for the current version of the given records, in two queries
 * (executions, then their satisfied methods) whatever the number of records.
 */
export async function signatureSummaries(em: EntityManager, records: SignedRecord[]): Promise<Map<string, SignatureSummary>> {
  const summaries = new Map<string, SignatureSummary>();
  if (records.length === 0) return summaries;
  const versions = new Map(records.map((r) => [r.id, r.currentVersion]));
  const executions = (await em.find(SignatureExecution, { record: { $in: records.map((r) => r.id) }, status: { $ne: 'superseded' } })).filter(
    (e) => versions.get(e.record.id) === e.recordVersion,
  );
  if (executions.length === 0) return summaries;
  const methods = await em.find(SignatureMethod, { execution: { $in: executions.map((e) => e.id) } });
  for (const execution of executions) {
    const own = methods.filter((m) => m.execution.id === execution.id);
    summaries.set(execution.participant.id, {
      status: execution.status === 'finalized' ? 'finalized' : 'in_progress',
      satisfiedMethodCount: satisfiedCount(own),
      canFinalize: canFinalize(execution, own),
      identicon: execution.status === 'finalized' ? toIdenticonView(execution.identicon) : null,
    });
  }
  return summaries;
}
