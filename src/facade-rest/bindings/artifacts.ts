import { catalog } from '../../graph/catalog/index.js';
import { bind, type RestOperation, type RestReply } from '../operation.js';
import { param, recordId } from './params.js';
import { CACHE_CONTROL } from '../../domain/shared/cache-policy.js';

const { artifacts } = catalog;

type File = { filename: string; contentType: string; hash: string; contentBase64: string };

/** A file reply: the exact stored bytes, named, with their hash as the strong ETag. */
function fileReply(file: File, extra: Record<string, string> = {}): RestReply {
  return {
    status: 200,
    file: Buffer.from(file.contentBase64, 'base64'),
    headers: {
      'Content-Type': file.contentType,
      'Content-Disposition': `attachment; filename="${file.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
      ETag: `"${file.hash}"`,
      'Cache-Control': CACHE_CONTROL.personal,
      ...extra,
    },
  };
}

/** The audit trail, the sealed PDF, the share card and its single-use tickets. */
export const artifactsRoutes: Record<string, RestOperation> = {
  getAgreementAuditTrail: bind(artifacts.getAuditTrail, { input: (r) => ({ id: recordId(r) }) }),
  getAgreementDocument: bind(artifacts.getDocument, { input: (r) => ({ id: recordId(r) }), reply: (file) => fileReply(file) }),
  getAgreementCard: bind(artifacts.getCard, { input: (r) => ({ id: recordId(r) }), reply: (file) => fileReply(file, { 'Content-Disposition': 'inline' }) }),
  getNotarizationCard: bind(artifacts.getCard, { input: (r) => ({ id: recordId(r), notarizationOnly: true }), reply: (file) => fileReply(file, { 'Content-Disposition': 'inline' }) }),
  createAgreementCardTicket: bind(artifacts.createCardTicket, { input: (r) => ({ id: recordId(r) }) }),
  createNotarizationCardTicket: bind(artifacts.createCardTicket, { input: (r) => ({ id: recordId(r), notarizationOnly: true }) }),
  redeemShareCard: bind(artifacts.redeemCardTicket, {
    issueLocation: 'path',
    input: (r) => ({ token: param('token')(r) }),
    reply: (file) => fileReply(file, { 'Content-Disposition': 'inline', 'Cache-Control': CACHE_CONTROL.secret, 'Referrer-Policy': 'no-referrer' }),
  }),
  redeemDocument: bind(artifacts.redeemDocumentTicket, {
    issueLocation: 'path',
    input: (r) => ({ token: param('token')(r) }),
    reply: (file) => fileReply(file, { 'Cache-Control': CACHE_CONTROL.secret, 'Referrer-Policy': 'no-referrer' }),
  }),
};
