import { entry } from './entry.js';
import { GetPublicRecordDocument, ReceiveMessengerUpdateDocument, VerifyRecordDocument } from './generated.js';

/** Public verification and the public record: no credentials. */
export const verification = {
  getPublicRecord: entry('verification.getPublicRecord', GetPublicRecordDocument, (data) => data.publicRecord),
  verifyRecord: entry('verification.verifyRecord', VerifyRecordDocument, (data) => data.verifyRecord),
};

/** Inbound platform calls: the update's keys belong to the platform and go on as sent. */
export const inbound = {
  receiveMessengerUpdate: entry('inbound.receiveMessengerUpdate', ReceiveMessengerUpdateDocument, (data) => data.receiveMessengerUpdate),
};
