import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SignatureExecution } from '../ceremonies/entities.js';
import { SignedRecord, type Participant } from '../records/entities.js';
import { AuditEntry, type AuditHead } from '../records/audit-trail.js';
import { canonicalBytes, sha256Tagged } from '../shared/canonical-json.js';
import { notifyRecordsChanged } from '../shared/record-changes.js';

export type AnchorStatus = 'pending' | 'retrying' | 'confirmed';

/**
 * The seal of a record: its canonical sealed metadata (the exact RFC 8785 bytes) and their hash,
 * written in the transaction that moves the record to `sealed` and never changed afterwards. The
 * chain record (anchoring) follows it.
 */
@Entity({ tableName: 'record_seals', triggers: [notifyRecordsChanged] })
export class RecordSeal {
  [OptionalProps]?: 'anchorStatus' | 'anchorRetryCount' | 'anchorNextRetryAt' | 'anchorBatchId' | 'anchorProof';

  @PrimaryKey({ type: 'uuid' })
  recordId!: string;

  /** The canonical JSON text; its UTF-8 bytes hash to metadataHash. */
  @Property({ type: 'text' })
  metadata!: string;

  @Property({ type: 'text', unique: true })
  metadataHash!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  sealedAt!: Date;

  @Property({ type: 'text' })
  anchorStatus: AnchorStatus = 'pending';

  @Property({ type: 'integer' })
  anchorRetryCount: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  anchorNextRetryAt: Date | null = null;

  /** The anchoring transaction that carries this seal (directly or as a Merkle leaf). */
  @Property({ type: 'uuid', nullable: true })
  anchorBatchId: string | null = null;

  /** Merkle inclusion proof of metadataHash in its batch's root (empty when anchored alone). */
  @Property({ type: 'json', nullable: true })
  anchorProof: string[] | null = null;
}

/** What a seal says about where it will be anchored and who sealed it; fixed when the service starts. */
export type SealContext = {
  /** SHA-256 (hex) of the seal certificate that signs the PDF, so a verifier can require it. */
  sealCertificateSha256: string | null;
  anchor: { network: string; chainId: number; registryAddress: string } | null;
  publicBaseUrl: string;
};

type SealedParticipant = {
  role: string;
  display_name: string | null;
  status: 'signed' | 'waived' | 'completed_without';
  confirmed_version: number | null;
  confirmed_at: string | null;
  evidence: { method_type: string; satisfied_at: string; evidence_hash: string }[];
  signature_digest: string | null;
  verified_contact?: { type: string; value: string | null };
};

export type SealedMetadata = {
  schema: 'record-seal/1';
  reference: string;
  type: string;
  version: number;
  title: string | null;
  body_hash: string;
  notarization: Record<string, unknown> | null;
  participants: SealedParticipant[];
  supersedes: string | null;
  on_chain_full_text: boolean;
  on_chain_include_verified_parties: boolean;
  created_at: string;
  sealed_at: string;
  audit_trail: { entries: number; head: string | null };
  verification_url: string;
  anchor: { network: string; chain_id: number; registry_address: string } | null;
  seal: { certificate_sha256: string } | null;
};

/** The participants a seal names, in order, with how each took part (the PDF lists the same). */
export function sealedParticipants(record: SignedRecord): { participant: Participant; status: SealedParticipant['status'] }[] {
  return record.participants
    .getItems()
    .map((participant) => ({ participant, status: participantStatus(participant, record.currentVersion) }))
    .filter((entry): entry is { participant: Participant; status: SealedParticipant['status'] } => entry.status !== null);
}

function participantStatus(p: Participant, version: number): SealedParticipant['status'] | null {
  if (p.confirmedVersion === version && !p.removedAt) return 'signed';
  if (p.waivedAt) return 'waived';
  if (p.removedAt) return 'completed_without';
  return null;
}

/**
 * The canonical sealed metadata of a record at the moment it seals: everything a verifier needs,
 * no secret, and nothing private (names and contact points only when the record asked to publish
 * verified parties), so the whole document can be public and anchored.
 */
async function composeSealedMetadata(
  em: EntityManager,
  record: SignedRecord,
  sealedAt: Date,
  context: SealContext,
  trailHead?: AuditHead | null,
): Promise<SealedMetadata> {
  const executions = await em.find(SignatureExecution, { record: record.id, recordVersion: record.currentVersion, status: 'finalized' });
  const byParticipant = new Map(executions.map((e) => [e.participant.id, e]));
  const trail = trailHead !== undefined ? trailHead : await em.findOne(AuditEntry, { recordId: record.id }, { orderBy: { seq: 'desc' } });
  const supersedes = record.supersedesRecordId ? await em.findOne(SignedRecord, { id: record.supersedesRecordId }, { fields: ['reference'] }) : null;
  const participants: SealedParticipant[] = [];
  for (const { participant: p, status } of sealedParticipants(record)) {
    const execution = status === 'signed' ? byParticipant.get(p.id) : undefined;
    participants.push({
      role: p.role,
      // Names and contact points are private unless the record asked to publish verified parties.
      display_name: record.onChainIncludeVerifiedParties ? p.displayName : null,
      status,
      confirmed_version: status === 'signed' ? p.confirmedVersion : null,
      confirmed_at: status === 'signed' ? (p.confirmedAt?.toISOString() ?? null) : null,
      evidence: (execution?.evidence ?? []).map((e) => ({ method_type: e.methodType, satisfied_at: e.satisfiedAt, evidence_hash: e.evidenceHash })),
      signature_digest: execution?.identicon?.digest ?? null,
      ...(record.onChainIncludeVerifiedParties && status === 'signed' ? { verified_contact: { type: p.contactPointType, value: p.contactPointValue } } : {}),
    });
  }
  const n = record.notarization;
  return {
    schema: 'record-seal/1',
    reference: record.reference,
    type: record.type,
    version: record.currentVersion,
    title: record.title,
    body_hash: n ? n.contentHash : record.bodyHash,
    notarization: n
      ? {
          content_type: n.contentType,
          content_hash: n.contentHash,
          hash_algorithm: n.hashAlgorithm,
          filename: n.filename,
          size_bytes: n.sizeBytes,
          mime_type: n.mimeType,
          label: n.label,
          text: n.contentType === 'text' && n.textPublic ? record.body : null,
        }
      : null,
    participants,
    supersedes: supersedes?.reference ?? null,
    on_chain_full_text: record.onChainFullText,
    on_chain_include_verified_parties: record.onChainIncludeVerifiedParties,
    created_at: record.createdAt.toISOString(),
    sealed_at: sealedAt.toISOString(),
    audit_trail: { entries: trail?.seq ?? 0, head: trail?.entryHash ?? null },
    verification_url: `${context.publicBaseUrl.replace(/\/+$/, '')}/verify/${record.reference}`,
    anchor: context.anchor ? { network: context.anchor.network, chain_id: context.anchor.chainId, registry_address: context.anchor.registryAddress } : null,
    seal: context.sealCertificateSha256 ? { certificate_sha256: context.sealCertificateSha256 } : null,
  };
}

/** Seals a record in the caller's transaction: the canonical metadata and its hash, once. */
export async function sealRecord(em: EntityManager, record: SignedRecord, sealedAt: Date, context: SealContext, trailHead?: AuditHead | null): Promise<RecordSeal> {
  const existing = await em.findOne(RecordSeal, { recordId: record.id });
  if (existing) return existing;
  const metadata = await composeSealedMetadata(em, record, sealedAt, context, trailHead);
  const bytes = canonicalBytes(metadata);
  const seal = em.create(RecordSeal, { recordId: record.id, metadata: bytes.toString('utf8'), metadataHash: sha256Tagged(bytes), sealedAt });
  await em.flush();
  return seal;
}
