import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType('AuditTrailEntry', { simpleResolvers: true, description: 'One entry of a record\'s hash-chained audit trail (no secrets, no contact values)' })
export class AuditTrailEntryObject {
  @Field(() => Int)
  seq!: number;

  @Field()
  at!: string;

  @Field({ description: 'initiator, party, witness or system' })
  actorRole!: string;

  @Field({ description: 'The lifecycle trigger or ceremony step, e.g. create, submit, method_satisfied, finalized, complete_signatures' })
  move!: string;

  @Field(() => Int, { description: 'The record version the move concerned' })
  version!: number;

  @Field(() => String, { nullable: true })
  methodType!: string | null;

  @Field(() => String, { nullable: true, description: 'The record status after a lifecycle move' })
  toStatus!: string | null;

  @Field(() => String, { nullable: true, description: 'On the sealing entry: the seal\'s metadata hash' })
  metadataHash!: string | null;

  @Field(() => String, { nullable: true })
  prevHash!: string | null;

  @Field({ description: 'sha256 of the RFC 8785 form of the entry (with the record id and the previous hash)' })
  entryHash!: string;
}

@ObjectType('AuditTrail', { simpleResolvers: true, description: "A record's audit trail; the seal commits to its head" })
export class AuditTrailObject {
  @Field(() => ID)
  recordId!: string;

  @Field()
  agrReference!: string;

  @Field(() => String, { nullable: true })
  head!: string | null;

  @Field({ description: 'Recomputed on read: false when any entry was changed after it was written' })
  chainValid!: boolean;

  @Field(() => [AuditTrailEntryObject])
  entries!: AuditTrailEntryObject[];
}

@ObjectType('SealedDocument', { simpleResolvers: true, description: 'The sealed, PAdES-signed PDF of a record (metadata; download over REST)' })
export class SealedDocumentObject {
  @Field()
  filename!: string;

  @Field()
  contentType!: string;

  @Field({ description: 'Document hash: sha256 of the exact bytes served' })
  hash!: string;

  @Field(() => Int)
  byteSize!: number;

  @Field(() => String, { nullable: true, description: 'For a sealed PDF: the PAdES level reached: B-B without a timestamp authority; B-LTA with one (B-T or B-LT when revocation data or the document timestamp could not be had)' })
  level!: string | null;

  @Field(() => Date)
  generatedAt!: Date;
}

@ObjectType('ArtifactFile', { simpleResolvers: true, description: 'An artifact with its bytes (base64), for in-process transports and clients that cannot download' })
export class ArtifactFileObject {
  @Field()
  filename!: string;

  @Field()
  contentType!: string;

  @Field({ description: 'sha256 of the exact bytes' })
  hash!: string;

  @Field(() => Int)
  byteSize!: number;

  @Field(() => String, { nullable: true, description: 'For a sealed PDF: the PAdES level reached (B-B, B-T, B-LT or B-LTA)' })
  level!: string | null;

  @Field({ description: 'The bytes, base64' })
  contentBase64!: string;
}

@ObjectType('CardTicket', { simpleResolvers: true, description: 'A short-lived, single-use URL for a share card; it reveals nothing about the record' })
export class CardTicketObject {
  @Field()
  url!: string;

  @Field(() => Date)
  expiresAt!: Date;
}
