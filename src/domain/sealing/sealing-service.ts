import type { MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../identity/principal.js';
import { requireAccess, type ScopedOperation } from '../identity/operation-access.js';
import { auditTrail, verifyAuditChain, type AuditTrailEntry } from '../records/audit-trail.js';
import { findRecordAsReader } from '../records/record-access.js';
import type { RecordType } from '../records/entities.js';
import type { Clock } from '../shared/clock.js';
import { DomainError } from '../shared/errors.js';
import { readerOf } from '../teams/team-access.js';
import type { ArtifactStore, StoredArtifact } from './artifact-store.js';
import type { SealArtifacts } from './artifacts-service.js';
import type { ArtifactKind } from './entities.js';
import { issueTicket, redeemTicket, type TicketKind } from './tickets.js';

export type AuditTrailView = {
  recordId: string;
  reference: string;
  entries: AuditTrailEntry[];
  head: string | null;
  /** Recomputed on every read: false when any stored entry was changed, removed or reordered. */
  chainValid: boolean;
};

/** An artifact's bytes as a download: what a transport needs to serve it. */
export type ArtifactDownload = { filename: string; contentType: string; hash: string; byteSize: number; level: string | null; bytes: Buffer };

export type CardTicketView = { url: string; expiresAt: Date };

export type SealingServiceSettings = { publicBaseUrl: string; cardTicketTtlSeconds: number };

/** How long a client waits before asking again for an artifact still being made. */
const PENDING_RETRY_SECONDS = 5;

/**
 * What sealing gives a record's participants: the audit trail, the sealed PDF, the share card and
 * its single-use tickets. Reads need the retrieve scope and a place in the record's identity graph.
 */
export class SealingService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      artifactStore: ArtifactStore;
      sealArtifacts: SealArtifacts;
      clock: Clock;
      settings: SealingServiceSettings;
    },
  ) {}

  async auditTrail(principal: Principal | null, idOrReference: string): Promise<AuditTrailView> {
    const { record, em } = await this.readable(principal, 'artifacts.getAuditTrail', idOrReference);
    const entries = await auditTrail(em, record.id);
    const check = verifyAuditChain(record.id, entries);
    return { recordId: record.id, reference: record.reference, entries, head: check.valid ? check.head : (entries.at(-1)?.entry_hash ?? null), chainValid: check.valid };
  }

  /** The sealed, signed PDF. Not for notarizations (404); 409 artifact_pending while it is being made. */
  async document(principal: Principal | null, idOrReference: string): Promise<ArtifactDownload> {
    const { record } = await this.readable(principal, 'artifacts.getDocument', idOrReference);
    if (record.type === 'notarization') throw DomainError.notFound('Document');
    if (!record.sealedAt) throw new DomainError('not_found', 'The record is not sealed: it has no sealed document yet');
    return this.documentOf(record.id);
  }

  /**
   * A short-lived, single-use URL for the sealed PDF (for a host that opens links without the
   * caller's credential); only the token's hash is stored. 409 artifact_pending while it is being made.
   */
  async createDocumentTicket(principal: Principal | null, idOrReference: string): Promise<CardTicketView> {
    const { record, em, caller } = await this.readable(principal, 'artifacts.createDocumentTicket', idOrReference);
    if (record.type === 'notarization') throw DomainError.notFound('Document');
    if (!record.sealedAt) throw new DomainError('not_found', 'The record is not sealed: it has no sealed document yet');
    if (!(await this.deps.artifactStore.read(em, record.id, 'sealed_pdf'))) {
      throw new DomainError('artifact_pending', 'The sealed document is being made; ask again shortly', { retryAfterSeconds: PENDING_RETRY_SECONDS });
    }
    const { token, expiresAt } = await issueTicket(em, { kind: 'signed_pdf', subjectId: record.id, identityId: caller.identityId, now: this.deps.clock.now(), ttlSeconds: this.deps.settings.cardTicketTtlSeconds });
    return { url: `${this.deps.settings.publicBaseUrl}/api/v1/artifacts/document/${token}`, expiresAt };
  }

  /** Redeems a sealed-PDF ticket, once (as a card ticket is redeemed). */
  async redeemDocumentTicket(token: string): Promise<ArtifactDownload> {
    return this.documentOf(await this.redeem(token, 'signed_pdf', 'This document link is unknown, already used or expired'));
  }

  private async documentOf(recordId: string): Promise<ArtifactDownload> {
    const stored = await this.deps.artifactStore.read(this.deps.orm.em.fork(), recordId, 'sealed_pdf');
    if (!stored) throw new DomainError('artifact_pending', 'The sealed document is being made; ask again shortly', { retryAfterSeconds: PENDING_RETRY_SECONDS });
    return download(stored.artifact, stored.bytes);
  }

  /** The private share card, made now if it does not exist yet. `only`: the /notarizations routes. */
  async card(principal: Principal | null, idOrReference: string, only?: RecordType): Promise<ArtifactDownload> {
    const { record } = await this.readable(principal, 'artifacts.getCard', idOrReference, only);
    return this.cardOf(record.id, record.sealedAt !== null);
  }

  /** A short-lived, single-use URL for the caller's card; only the token's hash is stored. */
  async createCardTicket(principal: Principal | null, idOrReference: string, only?: RecordType): Promise<CardTicketView> {
    const { record, em, caller } = await this.readable(principal, 'artifacts.createCardTicket', idOrReference, only);
    if (!record.sealedAt) throw new DomainError('not_found', 'The record is not sealed: it has no share card');
    const { token, expiresAt } = await issueTicket(em, { kind: 'share_card', subjectId: record.id, identityId: caller.identityId, now: this.deps.clock.now(), ttlSeconds: this.deps.settings.cardTicketTtlSeconds });
    return { url: `${this.deps.settings.publicBaseUrl}/api/v1/artifacts/share-card/${token}`, expiresAt };
  }

  /**
   * Redeems a ticket, once: the update that marks it redeemed is the check, so of many concurrent
   * redemptions exactly one wins. Unknown, used and expired tickets are refused alike.
   */
  async redeemCardTicket(token: string): Promise<ArtifactDownload> {
    return this.cardOf(await this.redeem(token, 'share_card', 'This card link is unknown, already used or expired'), true);
  }

  /** The record a ticket of this kind is for, redeemed now; unknown, used, expired and other-kind tickets alike are 404. */
  private redeem(token: string, kind: TicketKind, unknown: string): Promise<string> {
    return redeemTicket(this.deps.orm.em.fork(), token, kind, this.deps.clock.now(), unknown);
  }

  private async cardOf(recordId: string, sealed: boolean): Promise<ArtifactDownload> {
    if (!sealed) throw new DomainError('not_found', 'The record is not sealed: it has no share card');
    const em = this.deps.orm.em.fork();
    // Read it; make it first only when it does not exist yet (lazily, as a missing card is remade).
    let stored = await this.deps.artifactStore.read(em, recordId, 'share_card' satisfies ArtifactKind);
    if (!stored && (await this.deps.sealArtifacts.card(recordId))) stored = await this.deps.artifactStore.read(em, recordId, 'share_card');
    if (!stored) throw DomainError.notFound('Share card');
    return download(stored.artifact, stored.bytes);
  }

  private async readable(principal: Principal | null, operation: ScopedOperation, idOrReference: string, only?: RecordType) {
    const caller = requireAccess(principal, operation);
    const em = this.deps.orm.em.fork();
    const { record } = await findRecordAsReader(em, idOrReference, readerOf(caller));
    if (only && record.type !== only) throw DomainError.notFound('Record');
    return { record, em, caller };
  }
}

function download(artifact: StoredArtifact, bytes: Buffer): ArtifactDownload {
  return { filename: artifact.filename, contentType: artifact.contentType, hash: artifact.sha256, byteSize: artifact.byteSize, level: artifact.level, bytes };
}
