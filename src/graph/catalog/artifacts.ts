import { entry } from './entry.js';
import {
  CreateCardTicketDocument,
  CreateDocumentTicketDocument,
  GetRecordAuditTrailDocument,
  GetRecordDocumentFileDocument,
  GetShareCardFileDocument,
  RedeemCardTicketDocument,
  RedeemDocumentTicketDocument,
} from './generated.js';

/** What a sealed record became: its audit trail, the signed PDF, the share card and its tickets. */
export const artifacts = {
  getAuditTrail: entry('artifacts.getAuditTrail', GetRecordAuditTrailDocument, (data) => data.recordAuditTrail),
  getDocument: entry('artifacts.getDocument', GetRecordDocumentFileDocument, (data) => data.recordDocumentFile),
  getCard: entry('artifacts.getCard', GetShareCardFileDocument, (data) => data.shareCardFile),
  createCardTicket: entry('artifacts.createCardTicket', CreateCardTicketDocument, (data) => data.createCardTicket),
  redeemCardTicket: entry('artifacts.redeemCardTicket', RedeemCardTicketDocument, (data) => data.redeemCardTicket),
  createDocumentTicket: entry('artifacts.createDocumentTicket', CreateDocumentTicketDocument, (data) => data.createDocumentTicket),
  redeemDocumentTicket: entry('artifacts.redeemDocumentTicket', RedeemDocumentTicketDocument, (data) => data.redeemDocumentTicket),
};
