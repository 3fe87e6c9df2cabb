import { createHash } from 'node:crypto';
import { AFRelationship, PDFDocument, PDFHexString, type PDFPage } from 'pdf-lib/dist/pdf-lib.esm.min.js';
import { CONTENT_WIDTH, PAGE, PageFlow, color, drawIdenticon, drawQrCode, drawableText, embedFonts, sectionHeading, style, wrapText, type Fonts, type TextStyle } from './pdf-layout.js';
import { renderCertificate } from './pdf-certificate.js';
import { deflateNatively } from './pdf-deflate.js';
import type { SealedPdfInput, SealedPdfParticipant } from './pdf-input.js';
import { formatUtc, PALETTE, recordTypeLabel } from './look.js';

export type { SealedPdfInput } from './pdf-input.js';

const SEALED_METADATA_ATTACHMENT = 'sealed-metadata.json';
const AUDIT_TRAIL_ATTACHMENT = 'audit-trail.json';
const PRODUCER = 'record-signing-service sealing (pdf-lib)';

/**
 * The sealed record as a PDF a person can keep: the text, who signed what and how, the seal (document
 * identicon, metadata hash, verification link and QR code) and a certificate of completion, with the
 * canonical metadata and the audit trail attached. Deterministic: the same input gives the same bytes.
 */
export async function renderSealedPdf(input: SealedPdfInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const deflate = deflateNatively(doc);
  const fonts = await embedFonts(doc);
  const typeLabel = recordTypeLabel(input.recordType);
  describeDocument(doc, input, typeLabel);

  const flow = new PageFlow(doc);
  renderHeader(flow, fonts, input, typeLabel);
  renderBody(flow, fonts, input.body);
  renderSignatures(flow, fonts, input);
  renderSeal(flow, fonts, input);
  renderCertificate(flow, fonts, input, typeLabel);
  renderPageFurniture(flow.pages, fonts, input.reference, typeLabel);

  const attachmentOptions = { mimeType: 'application/json', creationDate: input.sealedAt, modificationDate: input.sealedAt, afRelationship: AFRelationship.Data };
  await doc.attach(input.attachments.sealedMetadataJson, SEALED_METADATA_ATTACHMENT, { ...attachmentOptions, description: 'Canonical sealed metadata (RFC 8785); its SHA-256 is the metadata_hash' });
  await doc.attach(input.attachments.auditTrailJson, AUDIT_TRAIL_ATTACHMENT, { ...attachmentOptions, description: 'Hash-chained audit trail of the record' });
  deflate.beforeSave();
  return doc.save();
}

/** Each line of the body is a paragraph, with a little air after it; blank lines stay blank. */
function renderBody(flow: PageFlow, fonts: Fonts, body: string): void {
  const text = style(fonts.regular, 10.5, PALETTE.ink);
  for (const paragraph of body.replace(/\r\n?/g, '\n').split('\n')) {
    flow.paragraph(paragraph, text, { lineHeight: 16 });
    if (paragraph.trim()) flow.gap(4);
  }
}

function describeDocument(doc: PDFDocument, input: SealedPdfInput, typeLabel: string): void {
  doc.setTitle(input.title?.trim() || `${typeLabel} ${input.reference}`, { showInWindowTitleBar: true });
  doc.setSubject(`Sealed ${typeLabel.toLowerCase()} ${input.reference}, version ${input.version}`);
  doc.setKeywords([input.reference, input.metadataHash]);
  doc.setCreator(input.serviceName ?? 'Record signing service');
  doc.setProducer(PRODUCER);
  doc.setLanguage('en');
  doc.setCreationDate(input.sealedAt);
  doc.setModificationDate(input.sealedAt);
  // A file identifier drawn from the seal, not from chance: the signer keeps it, so signing stays
  // deterministic too (no random /ID in the final trailer).
  const id = createHash('sha256').update(`${input.reference}\n${input.metadataHash}`).digest('hex').slice(0, 32).toUpperCase();
  doc.context.trailerInfo.ID = doc.context.obj([PDFHexString.of(id), PDFHexString.of(id)]);
}

const IDENTICON_HEADER = 62;

function renderHeader(flow: PageFlow, fonts: Fonts, input: SealedPdfInput, typeLabel: string): void {
  const page = flow.page;
  const top = flow.y;
  drawIdenticon(page, input.documentIdenticon.digestHex, PAGE.width - PAGE.right - IDENTICON_HEADER, top - IDENTICON_HEADER, IDENTICON_HEADER);
  const caption = `Document ${input.documentIdenticon.digestHex.slice(0, 8)}`;
  const captionSize = 7;
  page.drawText(caption, {
    x: PAGE.width - PAGE.right - IDENTICON_HEADER / 2 - fonts.regular.widthOfTextAtSize(caption, captionSize) / 2,
    y: top - IDENTICON_HEADER - 11,
    size: captionSize,
    font: fonts.regular,
    color: color(PALETTE.muted),
  });

  const textWidth = CONTENT_WIDTH - IDENTICON_HEADER - 24;
  flow.line(`SEALED ${typeLabel.toUpperCase()}`, style(fonts.bold, 8.5, PALETTE.accent), { lineHeight: 12 });
  flow.gap(6);
  flow.paragraph(input.title?.trim() || typeLabel, style(fonts.bold, 21, PALETTE.ink), { width: textWidth, lineHeight: 26 });
  flow.y = Math.min(flow.y, top - IDENTICON_HEADER - 16);
  flow.gap(12);

  const facts: [string, string][] = [
    ['Reference', input.reference],
    ['Version', String(input.version)],
    ['Sealed', formatUtc(input.sealedAt)],
  ];
  const columns = [0, 150, 240];
  facts.forEach(([label, value], index) => {
    const x = PAGE.left + (columns[index] ?? 0);
    page.drawText(label.toUpperCase(), { x, y: flow.y - 9, size: 7, font: fonts.bold, color: color(PALETTE.muted) });
    page.drawText(value, { x, y: flow.y - 23, size: 10, font: fonts.regular, color: color(PALETTE.ink) });
  });
  flow.gap(36);
  flow.rule(color(PALETTE.rule));
  flow.gap(14);
}

const ROLE_LABEL = { initiator: 'Initiator', party: 'Party', witness: 'Witness' } as const;
const METHOD_LABEL: Record<string, string> = {
  email_otp: 'Email code',
  codehost_gist: 'Code-host gist',
  microblog_post: 'Microblog post',
  forum_post: 'Forum post',
  webauthn_passkey: 'Passkey',
  messenger: 'Messenger',
  api_key: 'API key',
};

function renderSignatures(flow: PageFlow, fonts: Fonts, input: SealedPdfInput): void {
  const signers = input.participants.filter((p) => p.role !== 'witness');
  const witnesses = input.participants.filter((p) => p.role === 'witness');
  sectionHeading(flow, fonts, 'Signatures');
  signers.forEach((participant) => renderParticipant(flow, fonts, participant, input.version));
  if (witnesses.length > 0) {
    sectionHeading(flow, fonts, 'Witnesses');
    witnesses.forEach((participant) => renderParticipant(flow, fonts, participant, input.version));
  }
}

const SIGNATURE_ICON = 38;

function renderParticipant(flow: PageFlow, fonts: Fonts, participant: SealedPdfParticipant, version: number): void {
  const textX = PAGE.left + SIGNATURE_ICON + 14;
  const width = CONTENT_WIDTH - SIGNATURE_ICON - 14;
  const small = style(fonts.regular, 9, PALETTE.muted);
  const methods = participant.methods.map((m) => `${METHOD_LABEL[m.type] ?? m.type} at ${methodTime(m.satisfiedAt, participant.signedAt)}`).join(' · ');
  const methodLines = methods ? wrapText(`How: ${methods}`, small.font, small.size, width) : [];
  flow.ensure(Math.max(SIGNATURE_ICON + 8, 32 + methodLines.length * 13) + 12);

  const top = flow.y;
  if (participant.signatureDigestHex) {
    drawIdenticon(flow.page, participant.signatureDigestHex, PAGE.left, top - SIGNATURE_ICON - 2, SIGNATURE_ICON);
  } else {
    flow.page.drawRectangle({ x: PAGE.left, y: top - SIGNATURE_ICON - 2, width: SIGNATURE_ICON, height: SIGNATURE_ICON, borderColor: color(PALETTE.rule), borderWidth: 0.75, borderDashArray: [2, 2] });
  }
  const name = drawableText(participant.displayName?.trim() || `Unnamed ${ROLE_LABEL[participant.role].toLowerCase()}`, fonts.bold);
  const nameSize = 11;
  flow.line(name, style(fonts.bold, nameSize, PALETTE.ink), { x: textX, lineHeight: 15 });
  flow.page.drawText(ROLE_LABEL[participant.role].toUpperCase(), { x: textX + fonts.bold.widthOfTextAtSize(name, nameSize) + 8, y: flow.y + 3.9, size: 7, font: fonts.bold, color: color(PALETTE.accent) });
  flow.line(statusLine(participant, version), style(fonts.regular, 9.5, PALETTE.ink), { x: textX, lineHeight: 14 });
  for (const line of methodLines) flow.line(line, small, { x: textX, lineHeight: 13 });
  if (participant.signatureDigestHex) flow.line(`Signature ${participant.signatureDigestHex.slice(0, 16)}`, style(fonts.mono, 7.5, PALETTE.faint), { x: textX, lineHeight: 12 });
  flow.y = Math.min(flow.y, top - SIGNATURE_ICON - 2);
  flow.gap(14);
}

/** The time alone when the method was satisfied on the day of the signature, else date and time. */
function methodTime(at: Date, signedAt: Date | null): string {
  const full = formatUtc(at, true);
  return signedAt && signedAt.toISOString().slice(0, 10) === at.toISOString().slice(0, 10) ? full.slice(full.indexOf(', ') + 2) : full;
}

function statusLine(participant: SealedPdfParticipant, version: number): string {
  switch (participant.status) {
    case 'signed': {
      const signedVersion = participant.signedVersion ?? version;
      const when = participant.signedAt ? ` on ${formatUtc(participant.signedAt)}` : '';
      return `Signed version ${signedVersion}${when}`;
    }
    case 'waived':
      return 'Signature waived';
    case 'completed_without':
      return 'Completed without this signature';
  }
}

function renderSeal(flow: PageFlow, fonts: Fonts, input: SealedPdfInput): void {
  const height = 132;
  sectionHeading(flow, fonts, 'Seal', height);
  const page = flow.page;
  const top = flow.y;
  page.drawRectangle({ x: PAGE.left, y: top - height, width: CONTENT_WIDTH, height, color: color(PALETTE.panel) });
  const pad = 16;
  const icon = 64;
  drawIdenticon(page, input.documentIdenticon.digestHex, PAGE.left + pad, top - pad - icon, icon);
  const caption = `Document ${input.documentIdenticon.digestHex.slice(0, 8)}`;
  page.drawText(caption, { x: PAGE.left + pad + icon / 2 - fonts.regular.widthOfTextAtSize(caption, 7) / 2, y: top - pad - icon - 12, size: 7, font: fonts.regular, color: color(PALETTE.muted) });
  const qr = height - 2 * pad;
  drawQrCode(page, input.verificationUrl, PAGE.width - PAGE.right - pad - qr, top - pad - qr, qr, color(PALETTE.ink));

  const x = PAGE.left + pad + icon + 18;
  const width = CONTENT_WIDTH - 2 * pad - icon - 18 - qr - 16;
  let y = top - pad;
  const label = (text: string) => {
    page.drawText(text.toUpperCase(), { x, y: y - 8, size: 7, font: fonts.bold, color: color(PALETTE.muted) });
    y -= 14;
  };
  const lines = (text: string, textStyle: TextStyle, lineHeight: number) => {
    for (const line of wrapText(text, textStyle.font, textStyle.size, width)) {
      page.drawText(line, { x, y: y - textStyle.size, size: textStyle.size, font: textStyle.font, color: textStyle.color });
      y -= lineHeight;
    }
  };
  label('metadata_hash');
  lines(input.metadataHash, style(fonts.mono, 7.5, PALETTE.ink), 10);
  y -= 8;
  label('Verify at');
  lines(input.verificationUrl, style(fonts.regular, 8.5, PALETTE.accent), 11);
  flow.y = top - height;
}

/** The accent band on top and the footer (reference, page X of Y) on every page, once all exist. */
function renderPageFurniture(pages: PDFPage[], fonts: Fonts, reference: string, typeLabel: string): void {
  const size = 7.5;
  pages.forEach((page, index) => {
    page.drawRectangle({ x: 0, y: PAGE.height - 5, width: PAGE.width, height: 5, color: color(PALETTE.accent) });
    page.drawLine({ start: { x: PAGE.left, y: 52 }, end: { x: PAGE.width - PAGE.right, y: 52 }, thickness: 0.5, color: color(PALETTE.rule) });
    page.drawText(`${reference} · sealed ${typeLabel.toLowerCase()}`, { x: PAGE.left, y: 38, size, font: fonts.regular, color: color(PALETTE.muted) });
    const number = `page ${index + 1} of ${pages.length}`;
    page.drawText(number, { x: PAGE.width - PAGE.right - fonts.regular.widthOfTextAtSize(number, size), y: 38, size, font: fonts.regular, color: color(PALETTE.muted) });
  });
}
