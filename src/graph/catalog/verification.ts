import { entry } from './entry.js';
import { GetPublicRecordDocument, VerifyRecordDocument } from './generated.js';

/** Public verification and the public record: no credentials. */
export const verification = {
  getPublicRecord: entry('verification.getPublicRecord', GetPublicRecordDocument, (data) => data.publicRecord),
  verifyRecord: entry('verification.verifyRecord', VerifyRecordDocument, (data) => data.verifyRecord),
};
