import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { SignedRecord } from '../records/entities.js';
import { auditTrail, type AuditTrailEntry } from '../records/audit-trail.js';
import { canonicalBytes } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import type { Instruments } from '../shared/instruments.js';
import { recordArtifact, type DomainEvent, type DomainEvents } from '../shared/events.js';
import type { ArtifactFile, ArtifactStore, StoredArtifact } from './artifact-store.js';
import type { ArtifactKind } from './entities.js';
import { SHARE_CARD_HEIGHT, SHARE_CARD_WIDTH } from './look.js';
import type { SealedPdfInput, SealedPdfParticipant } from './pdf-input.js';
import type { SealRenderer } from './renderer.js';
import { RecordSeal, sealedParticipants, type SealedMetadata } from './seal.js';
import type { SealKey } from './seal-key.js';
import { describeDegradation, gapsOf } from './seal-completion.js';

export type ArtifactSettings = {
  tsaUrls: string[];
  serviceName: string;
  /** SEAL_COMPLETION_RETRY_SECONDS: a degraded seal is first tried again this long after it was made. */
  completionRetrySeconds: number;
};

type Sealed = { record: SignedRecord; seal: RecordSeal };

/**
 * Makes what a sealed record becomes: the PAdES-signed PDF (not for notarizations) and the share
 * card. Idempotent and restartable: rendering is deterministic and outside any transaction, storing
 * is first-wins with its `record_artifact` event in the same transaction, so a job that runs twice,
 * or dies half-way and runs again, leaves one artifact with one hash.
 */
export class SealArtifacts {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      artifactStore: ArtifactStore;
      sealKey: SealKey;
      events: DomainEvents;
      clock: Clock;
      settings: ArtifactSettings;
      logger: Logger;
      renderer: SealRenderer;
      instruments: Instruments;
    },
  ) {}

  /** Makes every missing artifact of a sealed record; nothing for a record that is not sealed. */
  async make(recordId: string): Promise<{ card: StoredArtifact | null; pdf: StoredArtifact | null }> {
    const em = this.deps.orm.em.fork();
    const stored = await this.deps.artifactStore.describeAll(em, recordId);
    const card = stored.find((artifact) => artifact.kind === 'share_card') ?? null;
    const pdf = stored.find((artifact) => artifact.kind === 'sealed_pdf') ?? null;
    if (card && pdf) return { card, pdf };
    // One load for both; independent of each other, they are drawn at once (on two render threads when
    // free) and stored together, in one transaction.
    const sealed = await this.load(em, recordId);
    if (!sealed) return { card, pdf };
    const [cardFile, pdfFile] = await Promise.all([card ? null : this.cardFile(sealed), pdf ? null : this.pdfFile(em, sealed)]);
    const kept = await this.keep([cardFile, pdfFile].filter((file) => file !== null));
    const made = { card: card ?? kept.get('share_card') ?? null, pdf: pdf ?? kept.get('sealed_pdf') ?? null };
    // The seal's artifacts are complete now (a notarization has no PDF): how long that took from the seal.
    if (kept.size > 0 && made.card && (made.pdf || sealed.record.type === 'notarization')) {
      this.deps.instruments.artifactsReady(Math.max(0, this.deps.clock.now().getTime() - sealed.seal.sealedAt.getTime()) / 1000);
    }
    return made;
  }

  /** The share card, made now if it does not exist yet (the card route generates lazily). */
  card(recordId: string): Promise<StoredArtifact | null> {
    return this.one(recordId, 'share_card', (_em, sealed) => this.cardFile(sealed));
  }

  pdf(recordId: string): Promise<StoredArtifact | null> {
    return this.one(recordId, 'sealed_pdf', (em, sealed) => this.pdfFile(em, sealed));
  }

  /** One artifact: the stored one, or drawn now for a sealed record (null for a record not sealed). */
  private async one(recordId: string, kind: ArtifactKind, draw: (em: EntityManager, sealed: Sealed) => Promise<ArtifactFile | null>): Promise<StoredArtifact | null> {
    const em = this.deps.orm.em.fork();
    const existing = await this.deps.artifactStore.describe(em, recordId, kind);
    if (existing) return existing;
    const sealed = await this.load(em, recordId);
    const file = sealed ? await draw(em, sealed) : null;
    return file ? ((await this.keep([file])).get(kind) ?? null) : null;
  }

  private async cardFile({ record, seal }: Sealed): Promise<ArtifactFile> {
    const png = await this.deps.renderer.card({
      title: record.title ?? '',
      reference: record.reference,
      status: 'sealed',
      sealedAt: seal.sealedAt,
      recordType: record.type,
      documentIdenticon: { digestHex: hexOf(seal.metadataHash), altText: `Document identicon of ${record.reference}` },
    });
    return {
      recordId: record.id,
      kind: 'share_card',
      bytes: png,
      contentType: 'image/png',
      filename: `${record.reference}-card.png`,
      width: SHARE_CARD_WIDTH,
      height: SHARE_CARD_HEIGHT,
    };
  }

  /** Notarizations have no PDF (null). */
  private async pdfFile(em: EntityManager, { record, seal }: Sealed): Promise<ArtifactFile | null> {
    if (record.type === 'notarization') return null;
    const metadata = JSON.parse(seal.metadata) as SealedMetadata;
    // The PDF goes to the participants: it names them (the public metadata does not).
    await em.populate(record, ['participants']);
    const names = sealedParticipants(record).map((p) => p.participant.displayName);
    // The trail as it stood at the seal: up to and including the entry that carries the seal's hash.
    const all = await auditTrail(em, record.id);
    const sealing = all.findIndex((e) => e.details.metadata_hash === seal.metadataHash);
    const entries = sealing >= 0 ? all.slice(0, sealing + 1) : all;
    const input: SealedPdfInput = {
      reference: record.reference,
      recordType: record.type,
      title: record.title,
      body: record.body,
      version: metadata.version,
      sealedAt: seal.sealedAt,
      createdAt: record.createdAt,
      metadataHash: seal.metadataHash,
      documentIdenticon: { digestHex: hexOf(seal.metadataHash), altText: `Document identicon of ${record.reference}` },
      verificationUrl: metadata.verification_url,
      participants: metadata.participants.map((p, i) => toPdfParticipant(p, names[i] ?? null)),
      auditTrail: entries.map((e) => ({ seq: e.seq, at: new Date(e.at), actorRole: e.actor_role, move: e.move, version: e.version, entryHash: e.entry_hash })),
      attachments: { sealedMetadataJson: Buffer.from(seal.metadata, 'utf8'), auditTrailJson: auditTrailDocument(record, entries) },
      serviceName: this.deps.settings.serviceName,
    };
    const signed = await this.deps.renderer.signedPdf(input, {
      key: this.deps.sealKey.signingMaterial(),
      options: { reason: `Sealed record ${record.reference}`, signingTime: seal.sealedAt, tsaUrls: this.deps.settings.tsaUrls },
    });
    // Authorities configured but the PDF below B-LTA: they did not all answer. Said at warn, counted, and
    // stored with what it lacks, for the completion job (seal-completion.ts) to finish it when they do.
    const missing = this.deps.settings.tsaUrls.length > 0 ? gapsOf(signed.level) : [];
    if (missing.length > 0) {
      this.deps.instruments.sealDegraded(signed.level);
      this.deps.logger.warn({ recordId: record.id, reference: record.reference, padesLevel: signed.level, missing, ...describeDegradation(signed) }, 'sealed PDF degraded: its authorities did not all answer; it will be completed when they do');
    }
    return {
      recordId: record.id,
      kind: 'sealed_pdf',
      bytes: signed.bytes,
      ...(missing.length > 0 ? { degraded: { missing, nextAttemptAt: new Date(this.deps.clock.now().getTime() + this.deps.settings.completionRetrySeconds * 1000) } } : {}),
      contentType: 'application/pdf',
      filename: `${record.reference}.pdf`,
      level: signed.level,
      archiveExpiresAt: signed.archiveExpiresAt,
      sealCertificate: { sha256: this.deps.sealKey.fingerprint, subject: this.deps.sealKey.subject },
    };
  }

  /**
   * Stores a record's files in one transaction, each first-wins, with a `record_artifact` event for each one
   * this call stored. Answers the artifacts as stored, by kind.
   */
  private async keep(files: readonly ArtifactFile[]): Promise<Map<ArtifactKind, StoredArtifact>> {
    if (files.length === 0) return new Map();
    let created = 0;
    const kept = await this.deps.orm.em.fork().transactional(async (em) => {
      const saved = new Map<ArtifactKind, StoredArtifact>();
      const events: DomainEvent[] = [];
      for (const file of files) {
        const { artifact, created: stored } = await this.deps.artifactStore.save(em, file);
        saved.set(file.kind, artifact);
        if (stored) events.push(recordArtifact({ recordId: file.recordId, artifact: file.kind, state: 'ready', at: this.deps.clock.now().toISOString() }));
      }
      await this.deps.events.write(em, events);
      created = events.length;
      return saved;
    });
    if (created > 0) this.deps.events.committed();
    return kept;
  }

  private async load(em: EntityManager, recordId: string): Promise<Sealed | null> {
    const record = await em.findOne(SignedRecord, { id: recordId });
    if (!record?.sealedAt) return null;
    const seal = await em.findOne(RecordSeal, { recordId });
    return seal ? { record, seal } : null;
  }
}

/** The audit-trail.json a sealed PDF carries: RFC 8785 bytes, so anyone can recompute the chain. */
export function auditTrailDocument(record: SignedRecord, entries: AuditTrailEntry[]): Buffer {
  return canonicalBytes({ schema: 'record-audit-trail/1', record_id: record.id, reference: record.reference, entries });
}

function toPdfParticipant(p: SealedMetadata['participants'][number], displayName: string | null): SealedPdfParticipant {
  return {
    role: p.role as SealedPdfParticipant['role'],
    displayName: displayName ?? p.display_name,
    status: p.status,
    signedVersion: p.confirmed_version,
    signedAt: p.confirmed_at ? new Date(p.confirmed_at) : null,
    methods: p.evidence.map((e) => ({ type: e.method_type, satisfiedAt: new Date(e.satisfied_at) })),
    signatureDigestHex: p.signature_digest ? hexOf(p.signature_digest) : null,
  };
}

function hexOf(tagged: string): string {
  return tagged.replace(/^sha256:/, '');
}
