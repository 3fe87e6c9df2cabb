import { CONTENT_WIDTH, PAGE, color, sectionHeading, style, wrapText, type Fonts, type PageFlow } from './pdf-layout.js';
import { formatUtc, PALETTE } from './look.js';
import type { SealedPdfAuditEntry, SealedPdfInput } from './pdf-input.js';

const COLUMNS = [
  { title: 'Time (UTC)', width: 112 },
  { title: 'Actor', width: 70 },
  { title: 'Move', width: 148 },
  { title: 'Version', width: 46 },
  { title: 'Entry hash', width: 0 },
] as const;
const ROW = 17;

/** The final page(s): what was sealed, the ceremony as the audit trail recorded it, how to verify. */
export function renderCertificate(flow: PageFlow, fonts: Fonts, input: SealedPdfInput, typeLabel: string): void {
  flow.addPage();
  flow.line(`SEALED ${typeLabel.toUpperCase()} · ${input.reference}`, style(fonts.bold, 8.5, PALETTE.accent), { lineHeight: 12 });
  flow.gap(6);
  flow.line('Certificate of completion', style(fonts.bold, 21, PALETTE.ink), { lineHeight: 26 });
  flow.gap(14);

  const head = input.auditTrail.at(-1);
  const facts: [string, string][] = [
    ['Title', input.title?.trim() || '(untitled)'],
    ['Reference', input.reference],
    ['Record type', typeLabel],
    ['Sealed version', String(input.version)],
    ['Created', formatUtc(input.createdAt, true)],
    ['Sealed', formatUtc(input.sealedAt, true)],
    ['Participants', participantSummary(input)],
    ['metadata_hash', input.metadataHash],
    ['Audit-trail head', head ? head.entryHash : '(empty)'],
  ];
  const labelWidth = 110;
  for (const [label, value] of facts) {
    const valueStyle = label === 'metadata_hash' || label === 'Audit-trail head' ? style(fonts.mono, 8, PALETTE.ink) : style(fonts.regular, 9.5, PALETTE.ink);
    const lines = wrapText(value, valueStyle.font, valueStyle.size, CONTENT_WIDTH - labelWidth);
    flow.ensure(lines.length * 14 + 4);
    flow.page.drawText(label, { x: PAGE.left, y: flow.y - 12, size: 8.5, font: fonts.bold, color: color(PALETTE.muted) });
    for (const line of lines) flow.line(line, valueStyle, { x: PAGE.left + labelWidth, lineHeight: 14 });
    flow.gap(3);
  }

  sectionHeading(flow, fonts, 'Ceremony', ROW * 3);
  tableHeader(flow, fonts);
  input.auditTrail.forEach((entry, index) => {
    if (flow.y - ROW < PAGE.bottom) {
      flow.addPage();
      tableHeader(flow, fonts);
    }
    tableRow(flow, fonts, entry, index);
  });
  if (input.auditTrail.length === 0) flow.line('No audit-trail entries.', style(fonts.regular, 9, PALETTE.muted));

  sectionHeading(flow, fonts, 'How to verify', 50);
  flow.paragraph(
    `To verify, open ${input.verificationUrl} or scan the QR code on the seal, and check that the reference, the metadata_hash and the identicons shown there match this document. ` +
      `The file also carries its own proof: the attached sealed-metadata.json hashes to the metadata_hash, the attached audit-trail.json chains to the audit-trail head, and the service's seal signature covers every byte, so any change is detectable.`,
    style(fonts.regular, 9.5, PALETTE.ink),
    { lineHeight: 14.5 },
  );
}

function participantSummary(input: SealedPdfInput): string {
  const count = (role: string) => input.participants.filter((p) => p.role === role).length;
  const signers = count('initiator') + count('party');
  const witnesses = count('witness');
  return `${signers} signer${signers === 1 ? '' : 's'}${witnesses ? `, ${witnesses} witness${witnesses === 1 ? '' : 'es'}` : ''}`;
}

function tableHeader(flow: PageFlow, fonts: Fonts): void {
  flow.ensure(ROW * 2);
  flow.page.drawRectangle({ x: PAGE.left, y: flow.y - ROW, width: CONTENT_WIDTH, height: ROW, color: color(PALETTE.accentSoft) });
  let x = PAGE.left + 6;
  for (const column of COLUMNS) {
    flow.page.drawText(column.title.toUpperCase(), { x, y: flow.y - 11.5, size: 7, font: fonts.bold, color: color(PALETTE.accent) });
    x += column.width;
  }
  flow.gap(ROW);
}

function tableRow(flow: PageFlow, fonts: Fonts, entry: SealedPdfAuditEntry, index: number): void {
  if (index % 2 === 1) flow.page.drawRectangle({ x: PAGE.left, y: flow.y - ROW, width: CONTENT_WIDTH, height: ROW, color: color(PALETTE.panel) });
  const hash = entry.entryHash.replace(/^sha256:/, '');
  const cells = [isoUtc(entry.at), entry.actorRole, entry.move.replace(/_/g, ' '), entry.version === null ? '–' : String(entry.version), hash.slice(0, 16)];
  let x = PAGE.left + 6;
  cells.forEach((text, i) => {
    const column = COLUMNS[i];
    const font = i === 4 ? fonts.mono : fonts.regular;
    const width = (column?.width || CONTENT_WIDTH - 6 - (x - PAGE.left)) - 6;
    const [fitted = ''] = wrapText(text, font, 8, width);
    flow.page.drawText(fitted, { x, y: flow.y - 11.5, size: 8, font, color: color(i === 4 ? PALETTE.muted : PALETTE.ink) });
    x += column?.width ?? 0;
  });
  flow.gap(ROW);
}

function isoUtc(date: Date): string {
  return date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '');
}
