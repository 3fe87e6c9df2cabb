import { DomainError } from '../../domain/shared/errors.js';
import { entry } from './entry.js';
import { GetRecordDocument, ListMyRecordsDocument } from './generated.js';

/**
 * The entries whose variables or result are code; every other entry is derived from its document
 * (`# catalog: <operation>` above it, entries.ts).
 */

/** `status` and `type` take any string: one that is no status or type matches no record. */
export type ListRecordsInput = { status?: string | null; type?: string | null; teamId?: string | null; limit?: number; offset?: number; withSvg?: boolean };

export const recordEntries = {
  list: entry(
    'records.list',
    ListMyRecordsDocument,
    (data) => data.myRecords,
    (input: ListRecordsInput) => ({
      status: input.status ?? null,
      type: input.type ?? null,
      teamId: input.teamId ?? null,
      limit: input.limit ?? 20,
      offset: input.offset ?? 0,
      withSvg: input.withSvg ?? false,
    }),
  ),
};

/** Notarizations are records: read through the record query, refused when the record is of another type. */
export const notarizationEntries = {
  get: entry('notarizations.get', GetRecordDocument, (data) => {
    if (data.record.type !== 'notarization') throw new DomainError('not_found', 'Notarization not found');
    return data.record;
  }),
};
