import { described } from '../describe.js';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { ArtifactDownload, CardTicketView, SealingService } from '../../domain/sealing/sealing-service.js';
import type { GraphContext } from '../context.js';
import { ArtifactFileObject, AuditTrailObject, CardTicketObject } from '../types/sealing.types.js';

@Resolver()
export class ArtifactsResolver {
  constructor(private readonly sealing: SealingService) {}

  @Query(() => AuditTrailObject, { description: "A record's hash-chained audit trail, checked on read; participants only (scope retrieve)" })
  async recordAuditTrail(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<AuditTrailObject> {
    const trail = await this.sealing.auditTrail(principal, id);
    return {
      recordId: trail.recordId,
      agrReference: trail.reference,
      head: trail.head,
      chainValid: trail.chainValid,
      entries: trail.entries.map((e) => ({
        seq: e.seq,
        at: e.at,
        actorRole: e.actor_role,
        move: e.move,
        version: e.version,
        methodType: e.details.method_type ?? null,
        toStatus: e.details.to_status ?? null,
        metadataHash: e.details.metadata_hash ?? null,
        prevHash: e.prev_hash,
        entryHash: e.entry_hash,
      })),
    };
  }

  @Query(() => ArtifactFileObject, { description: 'The sealed, PAdES-signed PDF of a record; artifact_pending while it is being made (scope retrieve)' })
  async recordDocumentFile(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<ArtifactFileObject> {
    return file(await this.sealing.document(principal, id));
  }

  @Query(() => ArtifactFileObject, { description: "A sealed record's private share card, made on first request (scope retrieve)" })
  async shareCardFile(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('notarizationOnly', { nullable: true, defaultValue: false, description: 'Answer not_found unless the record is a notarization' }) notarizationOnly: boolean,
  ): Promise<ArtifactFileObject> {
    return file(await this.sealing.card(principal, id, notarizationOnly ? 'notarization' : undefined));
  }

  @Mutation(() => CardTicketObject, { description: "Issues a five-minute, single-use URL for the caller's share card (scope retrieve)" })
  createCardTicket(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('notarizationOnly', { nullable: true, defaultValue: false }) notarizationOnly: boolean,
  ): Promise<CardTicketView> {
    return this.sealing.createCardTicket(principal, id, notarizationOnly ? 'notarization' : undefined);
  }

  @Mutation(() => CardTicketObject, {
    description: described('Issues a short-lived, single-use URL for the sealed PDF, for a client that opens links without the caller\'s credential', 'artifacts.createDocumentTicket'),
  })
  createDocumentTicket(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<CardTicketView> {
    return this.sealing.createDocumentTicket(principal, id);
  }

  @Mutation(() => ArtifactFileObject, { description: described('Redeems a sealed-PDF ticket, once; no credentials', 'artifacts.redeemDocumentTicket') })
  async redeemDocumentTicket(@Arg('token') token: string): Promise<ArtifactFileObject> {
    return file(await this.sealing.redeemDocumentTicket(token));
  }

  @Mutation(() => ArtifactFileObject, { description: 'Redeems a share-card ticket, once; no credentials' })
  async redeemCardTicket(@Arg('token') token: string): Promise<ArtifactFileObject> {
    return file(await this.sealing.redeemCardTicket(token));
  }
}

function file(download: ArtifactDownload): ArtifactFileObject {
  const { bytes, ...meta } = download;
  return { ...meta, contentBase64: bytes.toString('base64') };
}
