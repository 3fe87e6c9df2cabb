import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import type { SealedPdfInput } from '../../src/domain/sealing/pdf.js';

const run = promisify(execFile);

/** Runs a poppler tool; a non-zero exit is returned, not thrown (pdfsig exits 1 on a broken signature). */
export async function poppler(tool: 'pdfsig' | 'pdftotext' | 'pdfdetach' | 'pdftoppm' | 'pdfinfo', args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(`/usr/bin/${tool}`, args, { maxBuffer: 16 * 1024 * 1024 });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
  }
}

const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 14, minute, 7));

export const SAMPLE_BODY_PARAGRAPHS = [
  'This agreement is made between Élodie Marchand, residing in Lyon, and Κωνσταντίνος Παπαδόπουλος, residing in Thessaloniki.',
  'Purpose. The parties agree on the lease of the studio at 14 Rue des Acacias, 69003 Lyon, for twelve months starting on 1 December 2026. The monthly rent is 850 € payable before the fifth day of each month.',
  'Obligations. Ο μισθωτής αναλαμβάνει να διατηρεί το ακίνητο σε καλή κατάσταση. Арендатор обязуется содержать помещение в надлежащем состоянии.',
  '',
  `Identifier: ${'Z'.repeat(30)}averyveryverylongwordwithoutanyspacethatcannotfitonasinglelineofthepage.`,
];

/** A sealed two-party agreement whose body runs over several pages. */
export function sampleSealedPdfInput(overrides: Partial<SealedPdfInput> = {}): SealedPdfInput {
  const body = Array.from({ length: 10 }, (_, i) => SAMPLE_BODY_PARAGRAPHS.map((p) => (p ? `${i + 1}. ${p}` : p)).join('\n')).join('\n\n');
  const metadata = Buffer.from(JSON.stringify({ agr_reference: 'AGR-7K3M-9QXD', body_hash: `sha256:${sha256Hex(body)}`, title: 'Lease — Μίσθωση — Аренда', version: 3 }));
  const metadataHex = sha256Hex(metadata);
  const auditTrail = (
    [
      ['initiator', 'created', 1],
      ['initiator', 'amended', 2],
      ['party', 'accepted', 2],
      ['initiator', 'amended', 3],
      ['initiator', 'method_satisfied', 3],
      ['initiator', 'signed', 3],
      ['party', 'method_satisfied', 3],
      ['party', 'signed', 3],
      ['system', 'sealed', 3],
    ] as const
  ).map(([actorRole, move, version], index) => ({ seq: index + 1, at: at(index * 6), actorRole, move, version, entryHash: `sha256:${sha256Hex(`entry-${index}`)}` }));
  return {
    reference: 'AGR-7K3M-9QXD',
    recordType: 'agreement',
    title: 'Lease — Μίσθωση — Аренда',
    body,
    version: 3,
    createdAt: at(0),
    sealedAt: at(50),
    metadataHash: `sha256:${metadataHex}`,
    documentIdenticon: { digestHex: metadataHex, altText: 'Document identicon of AGR-7K3M-9QXD' },
    verificationUrl: 'https://sign.example.org/verify/AGR-7K3M-9QXD',
    participants: [
      { role: 'initiator', displayName: 'Élodie Marchand', status: 'signed', signedVersion: 3, signedAt: at(31), methods: [{ type: 'email_otp', satisfiedAt: at(30) }], signatureDigestHex: sha256Hex('signature-1') },
      { role: 'party', displayName: 'Κωνσταντίνος Παπαδόπουλος', status: 'signed', signedVersion: 3, signedAt: at(43), methods: [{ type: 'email_otp', satisfiedAt: at(41) }, { type: 'webauthn_passkey', satisfiedAt: at(42) }], signatureDigestHex: sha256Hex('signature-2') },
    ],
    auditTrail,
    attachments: { sealedMetadataJson: metadata, auditTrailJson: Buffer.from(JSON.stringify(auditTrail)) },
    ...overrides,
  };
}
