import { SealedDocumentObject } from './sealing.types.js';
import { TemplateOriginObject } from './template.types.js';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject, GraphQLSafeInt } from 'graphql-scalars';
import { BlockchainRecordObject, IdenticonObject, ShareCardObject } from './artifact.types.js';
import { CounterProposalObject } from './lifecycle.types.js';
import {
  ContactPointTypeEnum,
  InitiatorSignatureStatusEnum,
  ParticipantActionEnum,
  ParticipantRoleEnum,
  RecordActionEnum,
  RecordStatusEnum,
  RecordTypeEnum,
  SigningOrderEnum,
} from './enums.js';

@ObjectType('RecordReminders', { simpleResolvers: true, description: 'Reminders to participants who have not signed' })
export class RecordRemindersObject {
  @Field(() => Boolean, { description: 'Whether reminders go out for this record (the initiator turns them off and on)' })
  enabled!: boolean;

  @Field(() => Int, { nullable: true, description: "Days between reminders (null: the service's REMINDER_EVERY_DAYS)" })
  everyDays!: number | null;

  @Field(() => Int, { nullable: true, description: "A last reminder this many days before expiry (null: the service's REMINDER_BEFORE_EXPIRY_DAYS; 0: none)" })
  beforeExpiryDays!: number | null;
}

@ObjectType('PartySignatureState', { simpleResolvers: true, description: "A participant's signature for the current version (no method details)" })
export class PartySignatureStateObject {
  @Field(() => InitiatorSignatureStatusEnum)
  status!: string;

  @Field(() => Int)
  satisfiedMethodCount!: number;

  @Field()
  canFinalize!: boolean;
}

@ObjectType('Party', { simpleResolvers: true, description: 'A participant of a record: initiator, party (or co-notarizer) or witness' })
export class PartyObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ParticipantRoleEnum)
  role!: string;

  @Field(() => String, { nullable: true })
  displayName!: string | null;

  @Field(() => ContactPointTypeEnum)
  contactPointType!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Shown to the initiator for every participant, and to each participant for their own row; otherwise null',
  })
  contactPointValue!: string | null;

  @Field(() => Date)
  invitedAt!: Date;

  @Field(() => Date, { nullable: true })
  confirmedAt!: Date | null;

  @Field(() => Int, { nullable: true, description: 'The record version this participant signed' })
  confirmedVersion!: number | null;

  @Field(() => Date, { nullable: true })
  declinedAt!: Date | null;

  @Field(() => String, { nullable: true })
  declinedReason!: string | null;

  @Field(() => Date, { nullable: true })
  waivedAt!: Date | null;

  @Field(() => IdenticonObject, { nullable: true, description: 'Finalized signature identicon for the current version' })
  signatureIdenticon!: IdenticonObject | null;

  @Field(() => PartySignatureStateObject, { description: 'Where the participant stands in signing the current version' })
  signatureState!: PartySignatureStateObject;

  @Field(() => [ParticipantActionEnum], { description: 'The moves the reader (the initiator) may make on this participant now, from the lifecycle table' })
  availableActions!: string[];
}

@ObjectType('InitiatorSignature', { simpleResolvers: true, description: "State of the initiator's signature for the current version" })
export class InitiatorSignatureObject {
  @Field(() => InitiatorSignatureStatusEnum)
  status!: string;

  @Field(() => Int)
  requiredSignatureMethodCount!: number;

  @Field(() => Int)
  satisfiedMethodCount!: number;

  @Field()
  canFinalize!: boolean;

  @Field(() => Int, { nullable: true })
  confirmedVersion!: number | null;

  @Field(() => Date, { nullable: true })
  finalizedAt!: Date | null;
}

@ObjectType('WitnessSummary', { simpleResolvers: true })
export class WitnessSummaryObject {
  @Field(() => Int, { description: 'Witnesses not declined or waived' })
  active!: number;

  @Field(() => Int, { description: 'Witnesses who signed the current version' })
  signed!: number;

  @Field(() => Int)
  declined!: number;

  @Field(() => Int)
  waived!: number;

  @Field(() => Int)
  maxActive!: number;
}

@ObjectType('PublicNotarization', { simpleResolvers: true, description: 'What is public of a notarization; the text only when text_public' })
export class PublicNotarizationObject {
  @Field()
  contentType!: string;

  @Field()
  contentHash!: string;

  @Field()
  hashAlgorithm!: string;

  @Field(() => String, { nullable: true })
  filename!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Bytes; a whole number up to 2^53 - 1 (files larger than 2 GiB included)' })
  sizeBytes!: number | null;

  @Field(() => String, { nullable: true })
  mimeType!: string | null;

  @Field(() => String, { nullable: true })
  label!: string | null;

  @Field(() => String, { nullable: true })
  text!: string | null;
}

@ObjectType('Notarization', { simpleResolvers: true, description: 'A notarization as readers in its identity graph see it' })
export class NotarizationObject extends PublicNotarizationObject {
  @Field()
  textPublic!: boolean;

  @Field()
  signatureMode!: string;

  @Field(() => String, { nullable: true })
  agentIdentifier!: string | null;

  @Field(() => Int)
  coNotarizerCount!: number;
}

@ObjectType('Record', { simpleResolvers: true, description: 'An agreement, declaration, witnessed agreement or notarization' })
export class RecordObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: "The team that owns it, shown to the team's own readers (null for anyone else, and for a personal record)" })
  teamId!: string | null;

  @Field(() => TemplateOriginObject, { nullable: true, description: 'The template and version it was made from (null when typed)' })
  template!: TemplateOriginObject | null;

  @Field({ description: 'Public reference, e.g. AGR-7K3M-9QXD' })
  agrReference!: string;

  @Field(() => RecordTypeEnum)
  type!: string;

  @Field(() => RecordStatusEnum)
  status!: string;

  @Field(() => String, { nullable: true })
  title!: string | null;

  @Field()
  body!: string;

  @Field({ description: 'sha256:<hex> of the normalized body (NFC, whitespace collapsed, trimmed)' })
  bodyHash!: string;

  @Field(() => String, { nullable: true })
  summary!: string | null;

  @Field(() => String, { nullable: true })
  language!: string | null;

  @Field(() => String, { nullable: true })
  jurisdiction!: string | null;

  @Field({ description: 'rest_api, graphql, mcp or web' })
  initiatedVia!: string;

  @Field(() => Int)
  currentVersion!: number;

  @Field(() => Int)
  requiredSignatureMethodCount!: number;

  @Field(() => Int, { nullable: true, description: 'Days a submitted record waits for confirmations before it expires' })
  lapseDays!: number | null;

  @Field(() => SigningOrderEnum)
  signingOrder!: string;

  @Field(() => [ID], {
    description:
      'Whose turn it is: the participants other than the initiator who may sign the current version now (sequential order: one party, or the witnesses once every party signed); empty unless pending confirmation',
  })
  currentSignerIds!: string[];

  @Field(() => RecordRemindersObject)
  reminders!: RecordRemindersObject;

  @Field()
  onChainFullText!: boolean;

  @Field()
  onChainIncludeVerifiedParties!: boolean;

  @Field(() => [PartyObject])
  parties!: PartyObject[];

  @Field(() => CounterProposalObject, { nullable: true, description: 'At most one counter-proposal is active' })
  activeCounter!: CounterProposalObject | null;

  @Field(() => WitnessSummaryObject, { nullable: true })
  witnessSummary!: WitnessSummaryObject | null;

  @Field(() => ID, { nullable: true })
  supersedesAgrId!: string | null;

  @Field(() => ID, { nullable: true })
  supersededByAgrId!: string | null;

  @Field(() => BlockchainRecordObject, { nullable: true })
  blockchain!: BlockchainRecordObject | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => NotarizationObject, { nullable: true })
  notarization!: NotarizationObject | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  llmAnalysis!: Record<string, unknown> | null;

  @Field(() => InitiatorSignatureObject, { nullable: true })
  initiatorSignature!: InitiatorSignatureObject | null;

  @Field(() => Boolean, { nullable: true, description: 'For drafts: whether submit would succeed now' })
  readyForSubmission!: boolean | null;

  @Field(() => [RecordActionEnum], { description: 'The moves the reader may make on the record now, computed from the lifecycle table (a move not listed is refused)' })
  availableActions!: string[];

  @Field(() => IdenticonObject, { nullable: true, description: 'Document identicon, once sealed' })
  identicon!: IdenticonObject | null;

  @Field(() => ShareCardObject, { nullable: true })
  shareCard!: ShareCardObject | null;

  @Field(() => SealedDocumentObject, { nullable: true, description: 'The sealed PDF, once made (agreements, declarations, witnessed agreements)' })
  document!: SealedDocumentObject | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => Date, { nullable: true })
  sealedAt!: Date | null;
}

@ObjectType('RecordPage', { simpleResolvers: true })
export class RecordPageObject {
  @Field(() => [RecordObject])
  records!: RecordObject[];

  @Field(() => Int)
  total!: number;

  @Field(() => Int)
  limit!: number;

  @Field(() => Int)
  offset!: number;
}
