import { entry } from './entry.js';
import { GetBulkSendDocument, ListBulkSendsDocument, StartBulkSendDocument } from './generated.js';

/** Many records from one template, made by a job; their progress and failed rows. */
export const bulkSends = {
  start: entry('bulkSends.start', StartBulkSendDocument, (data) => data.startBulkSend),
  get: entry('bulkSends.get', GetBulkSendDocument, (data) => data.bulkSend),
  list: entry('bulkSends.list', ListBulkSendsDocument, (data) => data.bulkSends),
};
