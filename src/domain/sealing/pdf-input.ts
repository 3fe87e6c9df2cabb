/** What the sealed PDF is made from (kept apart so the page renderers share it without an import cycle). */
type SealedRecordType = 'agreement' | 'declaration' | 'witnessed_agreement';

export interface SealedPdfParticipant {
  role: 'initiator' | 'party' | 'witness';
  displayName: string | null;
  status: 'signed' | 'waived' | 'completed_without';
  signedVersion: number | null;
  signedAt: Date | null;
  methods: { type: string; satisfiedAt: Date }[];
  signatureDigestHex: string | null;
}

export interface SealedPdfAuditEntry {
  seq: number;
  at: Date;
  actorRole: string;
  move: string;
  version: number | null;
  /** 'sha256:<hex>' or bare hex. */
  entryHash: string;
}

export interface SealedPdfInput {
  reference: string;
  recordType: SealedRecordType;
  title: string | null;
  body: string;
  version: number;
  sealedAt: Date;
  createdAt: Date;
  /** 'sha256:<hex>' of the canonical sealed metadata. */
  metadataHash: string;
  documentIdenticon: { digestHex: string; altText: string };
  verificationUrl: string;
  participants: SealedPdfParticipant[];
  auditTrail: SealedPdfAuditEntry[];
  /** Embedded exactly as given: a verifier hashes these very bytes. */
  attachments: { sealedMetadataJson: Uint8Array; auditTrailJson: Uint8Array };
  /** Shown as the PDF's creator; defaults to the project's name. */
  serviceName?: string;
}

