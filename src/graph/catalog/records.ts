import { DomainError } from '../../domain/shared/errors.js';
import { entry } from './entry.js';
import {
  CreateAgreementDocument,
  CreateDeclarationDocument,
  GetRecordDocument,
  ListMyRecordsDocument,
  SetRemindersDocument,
  UpdateAgreementDocument,
} from './generated.js';

/** `status` and `type` take any string: one that is no status or type matches no record. */
export type ListRecordsInput = { status?: string | null; type?: string | null; teamId?: string | null; limit?: number; offset?: number; withSvg?: boolean };

/** Creating, reading, listing and editing records. */
export const records = {
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
  createAgreement: entry('records.createAgreement', CreateAgreementDocument, (data) => data.createAgreement),
  createDeclaration: entry('records.createDeclaration', CreateDeclarationDocument, (data) => data.createDeclaration),
  get: entry('records.get', GetRecordDocument, (data) => data.record),
  update: entry('records.update', UpdateAgreementDocument, (data) => data.updateAgreement),
  /** Reminders to participants who have not signed, off or on (initiator or team admin). */
  setReminders: entry('records.setReminders', SetRemindersDocument, (data) => data.setReminders),
};

/** Notarizations are records: read through the record query, refused when the record is of another type. */
export const notarizationReads = {
  get: entry('notarizations.get', GetRecordDocument, (data) => {
    if (data.record.type !== 'notarization') throw new DomainError('not_found', 'Notarization not found');
    return data.record;
  }),
};
