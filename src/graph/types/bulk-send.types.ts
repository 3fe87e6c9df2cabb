import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { BULK_SEND_STATUSES } from '../../domain/bulk-sends/entities.js';
import { asEnum } from './enums.js';
import { NamedPartyInput } from './record.inputs.js';

const BulkSendStatusEnum = asEnum(BULK_SEND_STATUSES);
registerEnumType(BulkSendStatusEnum, { name: 'BulkSendStatus', description: 'queued: accepted, its job not started; running: records being made; completed: every row done (created, submitted or failed)' });

@ObjectType('BulkSendIssue', { simpleResolvers: true, description: 'Why a row made no record: the issue a single create from the template gives' })
export class BulkSendIssueObject {
  @Field(() => [String], { description: "The input field, as a validation error's issue names it (e.g. values, amount)" })
  path!: string[];

  @Field()
  message!: string;

  @Field({ description: "The issue's machine type (e.g. missing, invalid_email)" })
  code!: string;
}

@ObjectType('BulkSendFailure', { simpleResolvers: true, description: 'A row that made no record' })
export class BulkSendFailureObject {
  @Field(() => Int, { description: 'The data row number as in the file (1 = the first row after the header)' })
  row!: number;

  @Field(() => ID, { nullable: true })
  recordId!: string | null;

  @Field(() => [BulkSendIssueObject])
  issues!: BulkSendIssueObject[];
}

@ObjectType('BulkSend', { simpleResolvers: true, description: 'Many records from one template, made by a job: counts, status and the failed rows' })
export class BulkSendObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  templateId!: string;

  @Field(() => Int, { description: 'The template version every record is made from (a later change of the template does not change the batch)' })
  templateVersion!: number;

  @Field(() => ID, { nullable: true, description: "The team whose template it is (its records are the team's); null: the caller's own" })
  teamId!: string | null;

  @Field(() => BulkSendStatusEnum)
  status!: string;

  @Field({ description: 'Each draft is signed with the API key and submitted' })
  submit!: boolean;

  @Field(() => Int, { description: 'Rows given' })
  total!: number;

  @Field(() => Int, { description: 'Rows done: created plus failed' })
  processed!: number;

  @Field(() => Int, { description: 'Records made (submitted ones included)' })
  created!: number;

  @Field(() => Int)
  submitted!: number;

  @Field(() => Int)
  failed!: number;

  @Field(() => [BulkSendFailureObject], { description: 'Every failed row, by row number' })
  failures!: BulkSendFailureObject[];

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt!: Date | null;
}

@InputType('BulkSendRowInput')
export class BulkSendRowInput {
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'A value for each field: {"field_name": "text"}' })
  values?: Record<string, unknown> | null;

  @Field(() => [NamedPartyInput], { nullable: true, description: "One per party role, in the template's order" })
  parties?: NamedPartyInput[] | null;
}

@InputType('BulkSendInput', { description: 'Exactly one of csv and rows, with 1 to 1000 rows' })
export class BulkSendInput {
  @Field(() => String, {
    nullable: true,
    description: 'A CSV file (at most 256 KiB): a header row naming a column per field, and for each party role i (1-based) party_<i>_name, party_<i>_contact and optionally party_<i>_contact_type (email or messenger)',
  })
  csv?: string | null;

  @Field(() => [BulkSendRowInput], { nullable: true })
  rows?: BulkSendRowInput[] | null;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: "Sign each draft with the API key and submit it: a person's API key with the create and verify scopes, and a template needing one signature method" })
  submit?: boolean | null;
}
