/**
 * A record's artifacts: the sealed PDF, the audit trail, the private card and its single-use tickets,
 * and the redemption of those tickets (public: the ticket is the proof).
 */
import { catalog } from '../../graph/catalog/index.js';
import { CACHE_CONTROL } from '../../domain/shared/cache-policy.js';
import { agrId, API, binary, idOrRef, json, PROTECTED_READ, singleUseHeaders, ticketToken } from '../openapi/operation.js';
import { bind, route, type RestReply, type RestRoute } from '../operation.js';
import { param, recordId } from './params.js';
import { AGR, NOT } from './record-contract.js';

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

const ticket = () => json('ShareCardTicketResponse', 200, 'A short-lived, single-use card URL.');

/** The artifacts of a record, for its participants. */
export function artifactRoutes(): RestRoute[] {
  const tags = ['Artifacts'];
  const cardNote = 'Private card of a sealed record for an authorized participant; generated lazily if absent.';
  const ticketNote =
    'Issues a short-lived (five minutes by default), single-use URL for the card of the authenticated participant. ' +
    'The URL reveals no record data and is not a presigned storage URL.';
  const card = (file: File) => fileReply(file, { 'Content-Disposition': 'inline' });
  return [
    route('get', `${AGR}/document`, {
      id: 'getAgreementDocument',
      summary: 'Download the sealed PDF',
      tags,
      description:
        'The sealed PDF of an agreement, declaration or witnessed agreement, signed with the service\'s seal (PAdES, ' +
        'ETSI.CAdES.detached), with a certificate of completion and `sealed-metadata.json` and `audit-trail.json` ' +
        'attached. The `ETag` is the document hash (sha256 of these exact bytes). Notarizations have no PDF (404). ' +
        'While the PDF is being made: 409 `artifact_pending` with `Retry-After`.',
      params: [agrId()],
      ok: binary('application/pdf', 'The sealed signed PDF.', {
        ETag: { description: 'The document hash, `"sha256:<hex>"`.', schema: { type: 'string' } },
        'Content-Disposition': { description: 'attachment; filename="<reference>.pdf"', schema: { type: 'string' } },
      }),
      errors: [401, 403, 404, 409, 429],
      runs: bind(artifacts.getDocument, { input: (r) => ({ id: recordId(r) }), reply: (file) => fileReply(file) }),
    }),
    route('get', `${AGR}/audit-trail`, {
      id: 'getAgreementAuditTrail',
      summary: 'Read the audit trail',
      tags,
      description:
        'Every lifecycle move and ceremony step of the record, hash-chained (each entry commits to the previous one; ' +
        'the seal commits to the head), checked on read. Participants only.',
      params: [agrId()],
      ok: json('AuditTrailResponse', 200, 'The audit trail.'),
      errors: PROTECTED_READ,
      runs: bind(artifacts.getAuditTrail, { input: (r) => ({ id: recordId(r) }) }),
    }),
    route('get', `${AGR}/card.png`, {
      id: 'getAgreementCard',
      summary: 'Download the private card',
      tags,
      description: cardNote,
      params: [agrId()],
      ok: binary('image/png', 'The card image.'),
      errors: PROTECTED_READ,
      runs: bind(artifacts.getCard, { input: (r) => ({ id: recordId(r) }), reply: card }),
    }),
    route('post', `${AGR}/card-ticket`, {
      id: 'createAgreementCardTicket',
      summary: 'Issue a card ticket',
      tags,
      description: ticketNote,
      params: [agrId()],
      ok: ticket(),
      errors: PROTECTED_READ,
      runs: bind(artifacts.createCardTicket, { input: (r) => ({ id: recordId(r) }) }),
    }),
    route('get', `${NOT}/card.png`, {
      id: 'getNotarizationCard',
      summary: 'Download the notarization card',
      tags: ['Notarizations', ...tags],
      description: cardNote,
      params: [idOrRef()],
      ok: binary('image/png', 'The card image.'),
      errors: PROTECTED_READ,
      runs: bind(artifacts.getCard, { input: (r) => ({ id: recordId(r), notarizationOnly: true }), reply: card }),
    }),
    route('post', `${NOT}/card-ticket`, {
      id: 'createNotarizationCardTicket',
      summary: 'Issue a notarization card ticket',
      tags: ['Notarizations', ...tags],
      description: ticketNote,
      params: [idOrRef()],
      ok: ticket(),
      errors: PROTECTED_READ,
      runs: bind(artifacts.createCardTicket, { input: (r) => ({ id: recordId(r), notarizationOnly: true }) }),
    }),
  ];
}

/** Redeeming a single-use ticket: no credentials, the ticket is the proof. */
export function ticketRoutes(): RestRoute[] {
  const secretHeaders = { 'Cache-Control': CACHE_CONTROL.secret, 'Referrer-Policy': 'no-referrer' };
  const token = param('token');
  return [
    route('get', `${API}/artifacts/share-card/{token}`, {
      id: 'redeemShareCard',
      summary: 'Redeem a card ticket',
      tags: ['Artifacts'],
      description:
        'Returns the card image and redeems the single-use ticket atomically. Unknown, expired or redeemed tickets ' +
        'answer 404.',
      params: [ticketToken()],
      ok: binary('image/png', 'The card image.', singleUseHeaders('The ticket URL')),
      errors: [404, 429],
      runs: bind(artifacts.redeemCardTicket, {
        issueLocation: 'path',
        input: (r) => ({ token: token(r) }),
        reply: (file) => fileReply(file, { 'Content-Disposition': 'inline', ...secretHeaders }),
      }),
    }),
    route('get', `${API}/artifacts/document/{token}`, {
      id: 'redeemDocument',
      summary: 'Redeem a sealed-PDF ticket',
      tags: ['Artifacts'],
      description:
        'Returns the sealed, signed PDF and redeems the single-use ticket atomically (tickets are issued by the MCP tool ' +
        '`get_agreement_card` and the GraphQL mutation `createDocumentTicket`). Unknown, expired or redeemed tickets answer 404.',
      params: [ticketToken()],
      ok: binary('application/pdf', 'The sealed PDF.', singleUseHeaders('The ticket URL')),
      errors: [404, 429],
      runs: bind(artifacts.redeemDocumentTicket, {
        issueLocation: 'path',
        input: (r) => ({ token: token(r) }),
        reply: (file) => fileReply(file, secretHeaders),
      }),
    }),
  ];
}
