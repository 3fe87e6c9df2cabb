import { entry } from './entry.js';
import { CreateNotarizationDocument } from './generated.js';
import { notarizationReads } from './records.js';

/** Notarizations of content hashes (their executions are the ceremony's, with `recordType: notarization`). */
export const notarizations = {
  create: entry('notarizations.create', CreateNotarizationDocument, (data) => data.createNotarization),
  ...notarizationReads,
};
