import { entry } from './entry.js';
import { ReceiveMessengerUpdateDocument } from './generated.js';

/** Inbound platform calls: the update's keys belong to the platform and go on as sent. */
export const inbound = {
  receiveMessengerUpdate: entry('inbound.receiveMessengerUpdate', ReceiveMessengerUpdateDocument, (data) => data.receiveMessengerUpdate),
};
