import type { MikroORM } from '@mikro-orm/postgresql';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { SignedRecord, type RecordStatus, type RecordType } from '../records/entities.js';
import { looksLikeReference } from '../records/reference.js';
import { textHash } from '../records/text.js';

export type PublicNotarization = {
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
};

export type Verdict = 'verified' | 'certificate' | 'matched_superseded' | 'matched_not_sealed' | 'no_match' | 'not_found';

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
};

export type VerifyArtifact = { text?: string | null; body?: string | null; contentHash?: string | null; documentHash?: string | null; txHash?: string | null };

const HASH = /^(?:sha256:)?([0-9a-fA-F]{64})$/;
/** Drafts are private until submitted: publicly they do not exist. */
const UNPUBLISHED: RecordStatus[] = ['draft', 'cancelled_draft'];

/**
 * Public, read-only verification by reference: a certificate lookup, or a match of supplied text
 * or hash against the record (one normalization for text, as everywhere). Needs no credentials.
 */
export class VerificationService {
  constructor(private readonly orm: MikroORM) {}

  async publicRecord(reference: string): Promise<PublicRecordView> {
    const record = await this.find(reference);
    if (!record) throw DomainError.notFound('Record');
    const n = record.notarization;
    return {
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

  async verify(reference: string, artifact: VerifyArtifact | null): Promise<VerificationView> {
    const supplied = artifact ? Object.entries(artifact).filter(([, value]) => value != null && value !== '') : [];
    if (artifact && supplied.length !== 1) {
      throw DomainError.invalid([], 'Give exactly one of text, body, content_hash, document_hash or tx_hash', 'one_of');
    }
    const record = await this.find(reference);
    if (!record) {
      return { agrReference: reference, recordFound: false, recordMatch: null, verified: false, verdict: 'not_found', currentAuthority: null, matchMethod: null, status: null, sealedAt: null };
    }
    const base = { agrReference: record.reference, recordFound: true, currentAuthority: await this.currentAuthority(record), status: record.status, sealedAt: record.sealedAt };
    const [field, value] = supplied[0] ?? [];
    if (!field || typeof value !== 'string') return { ...base, recordMatch: null, verified: false, verdict: 'certificate', matchMethod: null };
    const match = this.matches(record, field, value);
    const verdict: Verdict = !match ? 'no_match' : record.status === 'sealed' ? 'verified' : record.status === 'superseded' ? 'matched_superseded' : 'matched_not_sealed';
    return { ...base, recordMatch: match, verified: verdict === 'verified', verdict, matchMethod: match ? snake(field) : null };
  }

  private matches(record: SignedRecord, field: string, value: string): boolean {
    if (field === 'text' || field === 'body') return textHash(value) === record.bodyHash;
    if (field === 'contentHash') {
      const hash = HASH.exec(value.trim());
      if (!hash) throw DomainError.invalid(['contentHash'], 'Give the SHA-256 as 64 hex digits, optionally prefixed with sha256:', 'invalid_hash');
      const given = `sha256:${hash[1]!.toLowerCase()}`;
      return given === (record.notarization?.contentHash ?? record.bodyHash) || given === record.bodyHash;
    }
    // The sealed document and its chain transaction arrive with sealing; until then they cannot match.
    const issues = new IssueCollector();
    issues.add([field], `Verification by ${snake(field)} needs the sealed artifacts, which this service does not produce yet`, 'not_available');
    issues.throwIfAny();
    return false;
  }

  /** The record that governs now: the end of the chain of sealed successors. */
  private async currentAuthority(record: SignedRecord): Promise<string> {
    let current = record;
    for (let hops = 0; current.supersededByRecordId && hops < 50; hops += 1) {
      const next = await this.orm.em.fork().findOne(SignedRecord, { id: current.supersededByRecordId });
      if (!next) break;
      current = next;
    }
    return current.reference;
  }

  private async find(reference: string): Promise<SignedRecord | null> {
    const key = (reference ?? '').trim().toUpperCase();
    if (!looksLikeReference(key)) return null;
    const record = await this.orm.em.fork().findOne(SignedRecord, { reference: key }, { populate: ['participants'] });
    return record && !UNPUBLISHED.includes(record.status) ? record : null;
  }
}

function snake(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
