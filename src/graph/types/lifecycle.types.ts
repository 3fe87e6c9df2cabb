import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { COUNTER_STATUSES } from '../../domain/vocabulary.js';
import { asEnum } from './enums.js';

/** The lifecycle's own GraphQL types: counter-proposals, its live events and the inputs of its moves. */

const CounterStatusEnum = asEnum(COUNTER_STATUSES);
registerEnumType(CounterStatusEnum, { name: 'CounterStatus' });

@ObjectType('CounterProposal', { simpleResolvers: true, description: 'A proposed replacement body from a non-initiator party' })
export class CounterProposalObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  agreementId!: string;

  @Field(() => CounterStatusEnum)
  status!: string;

  @Field(() => ID)
  proposedByContactPointId!: string;

  @Field(() => String, { nullable: true })
  rawInput!: string | null;

  @Field(() => String, { nullable: true })
  assistedText!: string | null;

  @Field()
  proposedBody!: string;

  @Field(() => String, { nullable: true })
  diffSummary!: string | null;

  @Field(() => String, { nullable: true })
  resolvedBody!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  resolvedAt!: Date | null;
}


@ObjectType('RecordLifecycleEvent', { simpleResolvers: true, description: 'A lifecycle move of a record, pushed live' })
export class RecordLifecycleEventObject {
  @Field(() => ID)
  recordId!: string;

  @Field({ description: 'The trigger of the transition table that fired (or a participant-level move)' })
  trigger!: string;

  @Field()
  fromStatus!: string;

  @Field()
  toStatus!: string;

  @Field(() => ID, { nullable: true })
  participantId!: string | null;

  @Field(() => Int)
  recordVersion!: number;

  @Field()
  at!: string;

  @Field(() => String, { nullable: true, description: 'Where this event stands: give it as `after` when subscribing again to resume after it (opaque; null only from an instance of an older version)' })
  cursor!: string | null;
}

@ObjectType('RecordActivity', { simpleResolvers: true, description: "A lifecycle move, ceremony step or sealed artifact on any record the subscriber may read (a dashboard's feed)" })
export class RecordActivityObject {
  @Field(() => ID)
  recordId!: string;

  @Field({ description: 'lifecycle, signature or artifact' })
  kind!: string;

  @Field({ description: 'The lifecycle trigger, the ceremony event, or for artifacts `sealed_pdf_ready`, `share_card_ready`, `blockchain_pending`, `blockchain_retrying`, `blockchain_confirmed`' })
  event!: string;

  @Field(() => String, { nullable: true, description: 'The record status after a lifecycle move' })
  status!: string | null;

  @Field(() => ID, { nullable: true })
  participantId!: string | null;

  @Field()
  at!: string;

  @Field(() => String, { nullable: true, description: 'Where this event stands: give it as `after` when subscribing again to resume after it (opaque; null only from an instance of an older version)' })
  cursor!: string | null;
}

@InputType('DeclineInput')
export class DeclineInput {
  @Field(() => String, { nullable: true, description: 'At most 500 characters' })
  reason?: string | null;
}

@InputType('AmendInput')
export class AmendInput {
  @Field({ description: '10..7000 characters and 2..350 words after normalization' })
  body!: string;

  @Field(() => String, { nullable: true, description: 'At most 500 characters' })
  amendmentNote?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 500 characters' })
  summary?: string | null;
}

@InputType('CancelInput')
export class CancelInput {
  @Field(() => String, { nullable: true, description: 'At most 500 characters' })
  reason?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 500 characters' })
  summary?: string | null;
}

@InputType('SubmitCounterInput')
export class SubmitCounterInput {
  @Field({ description: 'The full proposed body' })
  proposedBody!: string;

  @Field(() => String, { nullable: true })
  rawInput?: string | null;
}

@InputType('ResolveCounterInput')
export class ResolveCounterInput {
  @Field({ description: 'accept, partially_accept or reject' })
  decision!: string;

  @Field(() => String, { nullable: true, description: 'Required for partially_accept' })
  resolvedBody?: string | null;
}
