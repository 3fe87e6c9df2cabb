import { Field, ID, InputType, Int } from 'type-graphql';
import { PartyContactPointTypeEnum, RecordTypeEnum, SigningOrderEnum } from './enums.js';
import type { RecordType, SigningOrder } from '../../domain/records/entities.js';

@InputType('RemindersInput', { description: 'Reminders to participants who have not signed; unset days take the service defaults' })
export class RemindersInput {
  @Field(() => Boolean, { nullable: true, defaultValue: true, description: 'false: no reminders for this record (the initiator can turn them on later)' })
  enabled?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Days between reminders, 1..30 (default REMINDER_EVERY_DAYS)' })
  everyDays?: number | null;

  @Field(() => Int, { nullable: true, description: 'One more reminder when the record expires within this many days, 0..30 (0: none; default REMINDER_BEFORE_EXPIRY_DAYS)' })
  beforeExpiryDays?: number | null;
}

@InputType('NamedPartyInput')
export class NamedPartyInput {
  @Field({ description: '1..50 characters' })
  displayName!: string;

  @Field(() => PartyContactPointTypeEnum, { nullable: true, defaultValue: 'email' })
  contactPointType?: 'email' | 'messenger' | null;

  @Field()
  contactPointValue!: string;
}

@InputType('CreateAgreementInput')
export class CreateAgreementInput {
  @Field(() => RecordTypeEnum, { nullable: true, defaultValue: 'agreement' })
  type?: RecordType | null;

  @Field(() => String, { nullable: true, description: 'At most 200 characters' })
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 500 characters' })
  summary?: string | null;

  @Field({ description: '10..7000 characters and 2..350 words after normalization' })
  body!: string;

  @Field(() => String, { nullable: true })
  jurisdiction?: string | null;

  @Field(() => [NamedPartyInput], { nullable: true, description: 'At most 14 non-initiator parties' })
  parties?: NamedPartyInput[] | null;

  @Field(() => [NamedPartyInput], { nullable: true, description: 'At most 5 witnesses' })
  witnesses?: NamedPartyInput[] | null;

  @Field()
  onChainFullText!: boolean;

  @Field({ description: 'More public; each signer must acknowledge it before finalizing' })
  onChainIncludeVerifiedParties!: boolean;

  @Field(() => Int, { nullable: true, description: '1..30 days' })
  lapseDays?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 1, description: '1, 2 or 3' })
  requiredSignatureMethodCount?: number | null;

  @Field(() => SigningOrderEnum, { nullable: true, defaultValue: 'parallel', description: 'Invite everyone at once (default) or the parties one at a time in list order' })
  signingOrder?: SigningOrder | null;

  @Field(() => RemindersInput, { nullable: true, description: 'Reminders to participants who have not signed (on by default, on the service schedule)' })
  reminders?: RemindersInput | null;

  @Field(() => ID, { nullable: true, description: "The team that will own it (the caller's member role in it needed); none: the caller's own. A team's API key creates for its team." })
  teamId?: string | null;
}

@InputType('CreateDeclarationInput')
export class CreateDeclarationInput {
  @Field(() => String, { nullable: true })
  title?: string | null;

  @Field(() => String, { nullable: true })
  summary?: string | null;

  @Field()
  body!: string;

  @Field(() => [NamedPartyInput], { nullable: true })
  witnesses?: NamedPartyInput[] | null;

  @Field()
  onChainFullText!: boolean;

  @Field()
  onChainIncludeVerifiedParties!: boolean;

  @Field(() => Int, { nullable: true })
  lapseDays?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 1 })
  requiredSignatureMethodCount?: number | null;

  @Field(() => SigningOrderEnum, { nullable: true, defaultValue: 'parallel', description: 'sequential: the witnesses are invited once the declarant submitted, as parallel (a declaration has no other party)' })
  signingOrder?: SigningOrder | null;

  @Field(() => RemindersInput, { nullable: true, description: 'Reminders to participants who have not signed (on by default, on the service schedule)' })
  reminders?: RemindersInput | null;

  @Field(() => ID, { nullable: true, description: "The team that will own it (the caller's member role in it needed); none: the caller's own. A team's API key creates for its team." })
  teamId?: string | null;
}

@InputType('UpdateAgreementInput', { description: 'Draft edit: only the given fields change; null clears an optional field' })
export class UpdateAgreementInput {
  @Field(() => String, { nullable: true })
  title?: string | null;

  @Field(() => String, { nullable: true })
  summary?: string | null;

  @Field(() => String, { nullable: true })
  body?: string | null;

  @Field(() => String, { nullable: true })
  jurisdiction?: string | null;

  @Field(() => [NamedPartyInput], { nullable: true })
  parties?: NamedPartyInput[] | null;

  @Field(() => [NamedPartyInput], { nullable: true })
  witnesses?: NamedPartyInput[] | null;

  @Field(() => Int, { nullable: true })
  lapseDays?: number | null;

  @Field(() => Int, { nullable: true })
  requiredSignatureMethodCount?: number | null;

  @Field(() => Boolean, { nullable: true })
  onChainFullText?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  onChainIncludeVerifiedParties?: boolean | null;
}
