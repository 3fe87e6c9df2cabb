import { described } from '../describe.js';
import { Arg, Ctx, Field, InputType, Int, ObjectType, Query, Resolver } from 'type-graphql';
import type { GraphContext } from '../context.js';
import type { PublicRecordView, VerificationService, VerificationView } from '../../domain/verification/verification-service.js';
import { RecordStatusEnum, RecordTypeEnum } from '../types/enums.js';
import { PublicNotarizationObject } from '../types/record.types.js';
import { BlockchainRecordObject, IdenticonObject } from '../types/artifact.types.js';

@ObjectType('PublicRecord', { simpleResolvers: true, description: 'A record as anyone may see it by reference: no body, participants or cards' })
class PublicRecordObject {
  @Field()
  agrReference!: string;

  @Field(() => RecordTypeEnum)
  type!: string;

  @Field(() => RecordStatusEnum)
  status!: string;

  @Field(() => Date, { nullable: true })
  sealedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => Int)
  partyCount!: number;

  @Field(() => PublicNotarizationObject, { nullable: true })
  notarization!: PublicNotarizationObject | null;

  @Field(() => IdenticonObject, { nullable: true, description: 'Document identicon; sealed records only' })
  identicon!: IdenticonObject | null;

  @Field(() => BlockchainRecordObject, { nullable: true, description: 'The chain record; sealed records only' })
  blockchain!: BlockchainRecordObject | null;
}

@ObjectType('PublicSealedDocument', { simpleResolvers: true, description: 'A sealed PDF as anyone may see it: its PAdES level and the certificate that signed it' })
class PublicSealedDocumentObject {
  @Field(() => String, { nullable: true, description: 'B-B without a timestamp authority; B-LTA with one (signature timestamp, validation data, archive timestamps); B-T or B-LT when part of that could not be had' })
  padesLevel!: string | null;

  @Field(() => String, { nullable: true, description: 'The seal certificate\'s subject' })
  certificateSubject!: string | null;

  @Field(() => String, { nullable: true, description: 'sha256:<hex> of the seal certificate (the sealed metadata\'s seal.certificate_sha256)' })
  certificateSha256!: string | null;

  @Field(() => Int, { description: 'Versions of the PDF: 1 as sealed, one more per archive timestamp renewal (each an incremental revision of the one before)' })
  versions!: number;

  @Field({ description: 'Document hash (sha256) of the PDF served now' })
  currentHash!: string;
}

@ObjectType('DocumentVersionMatch', { simpleResolvers: true, description: 'Which version of the sealed PDF a supplied document hash is' })
class DocumentVersionMatchObject {
  @Field(() => Int)
  version!: number;

  @Field({ description: 'Whether it is the PDF served now (false: an earlier version, before an archive timestamp was added or a degraded seal was completed)' })
  current!: boolean;

  @Field({ description: 'sealed (the PDF as sealed), archive_timestamp (a renewal appended validation data and a document timestamp) or completed (a seal made while its authorities were down was given its missing timestamp and validation data)' })
  cause!: string;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('Verification', { simpleResolvers: true, description: 'A public verification result; without an artifact only a certificate lookup' })
class VerificationObject {
  @Field()
  agrReference!: string;

  @Field()
  recordFound!: boolean;

  @Field(() => Boolean, { nullable: true })
  recordMatch!: boolean | null;

  @Field()
  verified!: boolean;

  @Field({ description: 'verified, certificate, matched_superseded, matched_not_sealed, no_match or not_found' })
  verdict!: string;

  @Field(() => String, { nullable: true, description: 'Reference of the record that governs now' })
  currentAuthority!: string | null;

  @Field(() => String, { nullable: true })
  matchMethod!: string | null;

  @Field(() => RecordStatusEnum, { nullable: true })
  status!: string | null;

  @Field(() => Date, { nullable: true })
  sealedAt!: Date | null;

  @Field(() => IdenticonObject, { nullable: true, description: 'Document identicon; sealed records only' })
  identicon!: IdenticonObject | null;

  @Field(() => String, { nullable: true, description: 'The canonical sealed metadata (JSON text, exactly as anchored; nothing private); sealed records only' })
  sealedMetadata!: string | null;

  @Field(() => PublicSealedDocumentObject, { nullable: true, description: 'The sealed PDF once it exists (not for notarizations): level and seal certificate' })
  document!: PublicSealedDocumentObject | null;

  @Field(() => BlockchainRecordObject, { nullable: true, description: 'The chain record of the seal (status, network, transaction, block); sealed records only' })
  blockchain!: BlockchainRecordObject | null;

  @Field(() => DocumentVersionMatchObject, { nullable: true, description: 'With a matching documentHash: which version of the sealed PDF it is' })
  documentVersion!: DocumentVersionMatchObject | null;
}

@InputType('VerifyArtifactInput', { description: 'Exactly one of the fields' })
export class VerifyArtifactInput {
  @Field(() => String, { nullable: true })
  text?: string | null;

  @Field(() => String, { nullable: true })
  body?: string | null;

  @Field(() => String, { nullable: true })
  contentHash?: string | null;

  @Field(() => String, { nullable: true })
  documentHash?: string | null;

  @Field(() => String, { nullable: true })
  txHash?: string | null;
}

/** Public verification: no credentials needed. */
@Resolver()
export class VerificationResolver {
  constructor(private readonly verification: VerificationService) {}

  @Query(() => PublicRecordObject, { description: described('The public view of a submitted record by its AGR reference', 'verification.getPublicRecord') })
  publicRecord(@Arg('reference') reference: string): Promise<PublicRecordView> {
    return this.verification.publicRecord(reference);
  }

  @Query(() => VerificationObject, { description: described('Verifies a record by reference, optionally against one supplied artifact', 'verification.verifyRecord') })
  verifyRecord(
    @Arg('reference') reference: string,
    @Arg('artifact', () => VerifyArtifactInput, { nullable: true }) artifact: VerifyArtifactInput | null,
    @Ctx() { clientAddress }: GraphContext,
  ): Promise<VerificationView> {
    return this.verification.verify(reference, artifact ? { ...artifact } : null, clientAddress);
  }
}
