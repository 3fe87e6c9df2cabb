import type { MikroORM } from '@mikro-orm/postgresql';
import type { AnchorReader } from '../../../packages/verifier/src/anchoring/chain.js';
import { hashToBytes32, transactionAnchors } from '../../../packages/verifier/src/anchoring/merkle.js';
import type { IdenticonView } from '../ceremonies/execution-view.js';
import { SealedArtifact, SealedDocumentVersion, type DocumentVersionCause } from '../sealing/entities.js';
import { RecordSeal } from '../sealing/seal.js';
import { sealingViewOf, sealingViews, type BlockchainView, type SealingSettings } from '../sealing/sealing-view.js';
import { DomainError } from '../shared/errors.js';
import type { AnswerCache } from '../shared/answer-cache.js';
import type { ClientLimits } from '../shared/client-limits.js';
import { cleanUnicode } from '../shared/unicode.js';
import { SignedRecord, type RecordStatus, type RecordType } from '../records/entities.js';
import { looksLikeReference } from '../records/reference.js';
import { textHash } from '../records/text.js';

type PublicNotarization = {
  contentType: string;
  contentHash: string;
  hashAlgorithm: string;
  filename: string | null;
  sizeBytes: number | null;
  mimeType: string | null;
  label: string | null;
  text: string | null;
};

/** What anyone may know of a record by its reference: no body, no participants, no cards. */
export type PublicRecordView = {
  agrReference: string;
  type: RecordType;
  status: RecordStatus;
  sealedAt: Date | null;
  expiresAt: Date | null;
  partyCount: number;
  notarization: PublicNotarization | null;
  /** Sealed records only: the document identicon and the chain record (never signature identicons). */
  identicon: IdenticonView | null;
  blockchain: BlockchainView | null;
};

/** A sealed PDF's seal as anyone may see it: the PAdES level and the certificate that signed it. */
export type SealedDocumentView = {
  padesLevel: string | null;
  certificateSubject: string | null;
  /** 'sha256:<hex>' of the seal certificate's DER (the sealed metadata's seal.certificate_sha256). */
  certificateSha256: string | null;
  /** How many versions the PDF has had (1 as sealed, one more per archive timestamp renewal). */
  versions: number;
  /** The SHA-256 of the PDF served now. */
  currentHash: string;
};

/** Which version of the sealed PDF a supplied document hash is. */
export type DocumentVersionMatch = { version: number; current: boolean; cause: DocumentVersionCause; createdAt: Date };

type Verdict = 'verified' | 'certificate' | 'matched_superseded' | 'matched_not_sealed' | 'no_match' | 'not_found';

export type VerificationView = {
  agrReference: string;
  recordFound: boolean;
  recordMatch: boolean | null;
  verified: boolean;
  verdict: Verdict;
  currentAuthority: string | null;
  matchMethod: string | null;
  status: RecordStatus | null;
  sealedAt: Date | null;
  /** Sealed records only: the document identicon. */
  identicon: IdenticonView | null;
  /**
   * Sealed records only: the canonical sealed metadata, exactly as anchored (it holds nothing
   * private), so anyone can archive it and verify offline.
   */
  sealedMetadata: string | null;
  /** Agreements, declarations and witnessed agreements once their PDF exists: its level and seal certificate. */
  document: SealedDocumentView | null;
  /** Sealed records only: the seal's chain record. */
  blockchain: BlockchainView | null;
  /** With a matching document_hash: which version of the sealed PDF it is. */
  documentVersion: DocumentVersionMatch | null;
};

export type VerifyArtifact = { text?: string | null; body?: string | null; contentHash?: string | null; documentHash?: string | null; txHash?: string | null };

const HASH = /^(?:sha256:)?([0-9a-fA-F]{64})$/;

/** A SHA-256 the caller gave (64 hex digits, `sha256:` optional), as stored: `sha256:` and lower case. */
function givenHash(field: string, value: string): string {
  const hash = HASH.exec(value.trim());
  if (!hash) throw DomainError.invalid([field], 'Give the SHA-256 as 64 hex digits, optionally prefixed with sha256:', 'invalid_hash');
  return `sha256:${hash[1]!.toLowerCase()}`;
}
/** Drafts are private until submitted: publicly they do not exist. */
const UNPUBLISHED: RecordStatus[] = ['draft', 'cancelled_draft'];

/**
 * Public, read-only verification by reference: a certificate lookup, or a match of supplied text
 * or hash against the record (one normalization for text, as everywhere). Needs no credentials.
 */
export class VerificationService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clientLimits: ClientLimits;
      /** The chain, for verification by transaction hash; null without one. */
      chain: (() => Promise<AnchorReader>) | null;
      sealing: SealingSettings;
      /** Sealed records' public answers (see AnswerCache: dropped on every domain event); none without. */
      cache: AnswerCache<PublicRecordView | VerificationView> | null;
    },
  ) {}

  /**
   * Whether the public record of this reference is kept now (sealed and final, see `final`): its
   * answer can only change with an event, which drops it. The REST facade keeps its answer's bytes
   * only while this holds (kept-public-answers.ts).
   */
  publicRecordKept(reference: string): boolean {
    return this.deps.cache?.has(`public:${normalReference(reference)}`) ?? false;
  }

  async publicRecord(reference: string): Promise<PublicRecordView> {
    const load = () => this.loadPublicRecord(reference);
    if (!this.deps.cache) return load();
    return this.deps.cache.get(`public:${normalReference(reference)}`, load, (view) => this.final(view)) as Promise<PublicRecordView>;
  }

  /** Sealed, its chain record changes only with an event once a batch carries it (or when no chain can anchor it). */
  private final(view: { sealedAt: Date | null; blockchain: BlockchainView | null }): boolean {
    return view.sealedAt !== null && (view.blockchain?.network != null || view.blockchain?.status === 'confirmed' || !this.deps.chain);
  }

  private async loadPublicRecord(reference: string): Promise<PublicRecordView> {
    const record = await this.find(reference);
    if (!record) throw DomainError.notFound('Record');
    const n = record.notarization;
    const sealing = (await sealingViews(this.deps.orm.em.fork(), [record], this.deps.sealing)).get(record.id);
    return {
      identicon: sealing?.identicon ?? null,
      blockchain: sealing?.blockchain ?? null,
      agrReference: record.reference,
      type: record.type,
      status: record.status,
      sealedAt: record.sealedAt,
      expiresAt: record.expiresAt,
      partyCount: record.participants.getItems().filter((p) => !p.removedAt).length,
      notarization: n
        ? {
            contentType: n.contentType,
            contentHash: n.contentHash,
            hashAlgorithm: n.hashAlgorithm,
            filename: n.filename,
            sizeBytes: n.sizeBytes,
            mimeType: n.mimeType,
            label: n.label,
            text: n.contentType === 'text' && n.textPublic ? record.body : null,
          }
        : null,
    };
  }

  /** `client`: the anonymous caller's network address (limited per address). */
  async verify(reference: string, artifact: VerifyArtifact | null, client?: string | null): Promise<VerificationView> {
    await this.deps.clientLimits.admit(client, 'public_verify');
    const supplied = artifact ? Object.entries(artifact).filter(([, value]) => value != null && value !== '') : [];
    if (artifact && supplied.length !== 1) {
      throw DomainError.invalid([], 'Give exactly one of text, body, content_hash, document_hash or tx_hash', 'one_of');
    }
    if (!artifact && this.deps.cache) {
      // The certificate lookup of a sealed record changes only with an event (supersession); matches are never cached.
      const load = () => this.certificate(reference);
      return this.deps.cache.get(`verify:${normalReference(reference)}`, load, (view) => this.final(view)) as Promise<VerificationView>;
    }
    return this.certificate(reference, supplied);
  }

  /** The certificate lookup, and the match of the one supplied artifact when given. */
  private async certificate(reference: string, supplied: [string, unknown][] = []): Promise<VerificationView> {
    const record = await this.find(reference);
    if (!record) {
      return {
        agrReference: reference, recordFound: false, recordMatch: null, verified: false, verdict: 'not_found', currentAuthority: null, matchMethod: null,
        status: null, sealedAt: null, identicon: null, sealedMetadata: null, document: null, blockchain: null, documentVersion: null,
      };
    }
    const em = this.deps.orm.em.fork();
    const seal = record.sealedAt ? await em.findOne(RecordSeal, { recordId: record.id }) : null;
    const sealing = seal ? await sealingViewOf(em, record, seal, this.deps.sealing) : undefined;
    const base = {
      agrReference: record.reference,
      recordFound: true,
      currentAuthority: await this.currentAuthority(record),
      status: record.status,
      sealedAt: record.sealedAt,
      identicon: sealing?.identicon ?? null,
      sealedMetadata: seal?.metadata ?? null,
      document: seal ? await this.sealedDocument(record.id) : null,
      blockchain: sealing?.blockchain ?? null,
      documentVersion: null,
    };
    const [field, value] = supplied[0] ?? [];
    if (!field || typeof value !== 'string') return { ...base, recordMatch: null, verified: false, verdict: 'certificate', matchMethod: null };
    const documentVersion = field === 'documentHash' ? await this.documentVersion(record.id, value, base.document) : undefined;
    const match = documentVersion !== undefined ? documentVersion !== null : await this.matches(record, seal, field, value);
    const verdict: Verdict = !match ? 'no_match' : record.status === 'sealed' ? 'verified' : record.status === 'superseded' ? 'matched_superseded' : 'matched_not_sealed';
    return { ...base, documentVersion: documentVersion ?? null, recordMatch: match, verified: verdict === 'verified', verdict, matchMethod: match ? snake(field) : null };
  }

  /** The sealed PDF's level, seal certificate and versions, once it exists. */
  private async sealedDocument(recordId: string): Promise<SealedDocumentView | null> {
    const em = this.deps.orm.em.fork();
    const artifact = await em.findOne(SealedArtifact, { recordId, kind: 'sealed_pdf' }, { fields: ['sha256', 'level', 'sealCertificateSha256', 'sealCertificateSubject'] });
    if (!artifact) return null;
    return {
      padesLevel: artifact.level,
      certificateSubject: artifact.sealCertificateSubject,
      certificateSha256: artifact.sealCertificateSha256,
      versions: await em.count(SealedDocumentVersion, { recordId }),
      currentHash: artifact.sha256,
    };
  }

  /**
   * A document hash is the SHA-256 of the exact bytes of a version of the sealed PDF: the one served
   * now, or an earlier one (before an archive timestamp renewal appended a revision).
   */
  private async documentVersion(recordId: string, value: string, document: SealedDocumentView | null): Promise<DocumentVersionMatch | null> {
    const given = givenHash('documentHash', value);
    const found = await this.deps.orm.em.fork().findOne(SealedDocumentVersion, { recordId, sha256: given }, { orderBy: { version: 'desc' } });
    if (!found) return null;
    return { version: found.version, current: document?.currentHash === given, cause: found.cause, createdAt: found.createdAt };
  }

  private async matches(record: SignedRecord, seal: RecordSeal | null, field: string, value: string): Promise<boolean> {
    if (field === 'text' || field === 'body') return textHash(value) === record.bodyHash;
    if (field === 'txHash') return this.anchoredBy(seal, value);
    const given = givenHash(field, value);
    return given === (record.notarization?.contentHash ?? record.bodyHash) || given === record.bodyHash;
  }

  /** Whether a transaction is a registry anchoring that carries this record's seal (directly or through its stored proof). */
  private async anchoredBy(seal: RecordSeal | null, txHash: string): Promise<boolean> {
    const tx = txHash.trim().toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(tx)) throw DomainError.invalid(['txHash'], 'Give the transaction hash as 0x and 64 hex digits', 'invalid_hash');
    if (!seal || !this.deps.chain) return false;
    const unreachable = () => {
      throw new DomainError('unavailable', 'The chain cannot be reached right now; ask again shortly', { retryAfterSeconds: 30 });
    };
    const chain = await this.deps.chain().catch(unreachable);
    const anchoring = await chain.readAnchorTransaction(tx as `0x${string}`).catch(unreachable);
    if (!anchoring) return false;
    return transactionAnchors(anchoring.anchored, hashToBytes32(seal.metadataHash), seal.anchorProof ?? undefined);
  }

  /** The record that governs now: the end of the chain of sealed successors. */
  private async currentAuthority(record: SignedRecord): Promise<string> {
    let current = record;
    for (let hops = 0; current.supersededByRecordId && hops < 50; hops += 1) {
      const next = await this.deps.orm.em.fork().findOne(SignedRecord, { id: current.supersededByRecordId });
      if (!next) break;
      current = next;
    }
    return current.reference;
  }

  private async find(reference: string): Promise<SignedRecord | null> {
    const key = normalReference(reference);
    if (!looksLikeReference(key)) return null;
    const record = await this.deps.orm.em.fork().findOne(SignedRecord, { reference: key }, { populate: ['participants'] });
    return record && !UNPUBLISHED.includes(record.status) ? record : null;
  }
}

function normalReference(reference: string): string {
  return cleanUnicode(reference ?? '').trim().toUpperCase();
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
