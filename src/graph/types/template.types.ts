import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { NamedPartyInput } from './record.inputs.js';
import type { SigningOrder } from '../../domain/vocabulary.js';

@ObjectType('TemplateField', { simpleResolvers: true, description: 'A placeholder of the text: {{name}} in its title or body' })
export class TemplateFieldObject {
  @Field()
  name!: string;

  @Field()
  label!: string;

  @Field()
  required!: boolean;

  @Field(() => Int, { nullable: true })
  maxLength!: number | null;
}

@ObjectType('TemplateParty', { simpleResolvers: true, description: 'A role to fill when using the template' })
export class TemplatePartyObject {
  @Field()
  label!: string;

  @Field({ description: 'party or witness' })
  role!: string;
}

@ObjectType('TemplateDefaults', { simpleResolvers: true })
export class TemplateDefaultsObject {
  @Field(() => Int)
  requiredSignatureMethodCount!: number;

  @Field(() => Int, { nullable: true })
  lapseDays!: number | null;

  @Field()
  onChainFullText!: boolean;

  @Field()
  onChainIncludeVerifiedParties!: boolean;

  @Field(() => String, { description: 'parallel or sequential' })
  signingOrder!: string;
}

@ObjectType('Template', { simpleResolvers: true, description: 'A record text with {{placeholders}}, its party roles and defaults, owned by a person or a team' })
export class TemplateObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: 'The team that owns it (null: the caller\'s own)' })
  teamId!: string | null;

  @Field()
  name!: string;

  @Field({ description: 'agreement, declaration or witnessed_agreement' })
  recordType!: string;

  @Field(() => String, { nullable: true })
  title!: string | null;

  @Field()
  body!: string;

  @Field(() => [TemplateFieldObject])
  fields!: TemplateFieldObject[];

  @Field(() => [TemplatePartyObject])
  parties!: TemplatePartyObject[];

  @Field(() => TemplateDefaultsObject)
  defaults!: TemplateDefaultsObject;

  @Field(() => Int, { description: 'Grows with every change; a record remembers the version it came from' })
  version!: number;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@InputType('TemplateFieldInput')
export class TemplateFieldInput {
  @Field({ description: 'Lowercase letters, digits and _, starting with a letter; used as {{name}}' })
  name!: string;

  @Field()
  label!: string;

  @Field(() => Boolean, { nullable: true, defaultValue: true })
  required?: boolean | null;

  @Field(() => Int, { nullable: true })
  maxLength?: number | null;
}

@InputType('TemplatePartyInput')
export class TemplatePartyInput {
  @Field()
  label!: string;

  @Field(() => String, { nullable: true, defaultValue: 'party', description: 'party or witness' })
  role?: string | null;
}

@InputType('TemplateDefaultsInput')
export class TemplateDefaultsInput {
  @Field(() => Int, { nullable: true })
  requiredSignatureMethodCount?: number | null;

  @Field(() => Int, { nullable: true })
  lapseDays?: number | null;

  @Field(() => Boolean, { nullable: true })
  onChainFullText?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  onChainIncludeVerifiedParties?: boolean | null;

  @Field(() => String, { nullable: true, description: 'parallel (default) or sequential' })
  signingOrder?: SigningOrder | null;
}

@InputType('CreateTemplateInput')
export class CreateTemplateInput {
  @Field()
  name!: string;

  @Field(() => String, { nullable: true, defaultValue: 'agreement' })
  recordType?: string | null;

  @Field(() => String, { nullable: true })
  title?: string | null;

  @Field()
  body!: string;

  @Field(() => [TemplateFieldInput], { nullable: true })
  fields?: TemplateFieldInput[] | null;

  @Field(() => [TemplatePartyInput], { nullable: true })
  parties?: TemplatePartyInput[] | null;

  @Field(() => TemplateDefaultsInput, { nullable: true })
  defaults?: TemplateDefaultsInput | null;

  @Field(() => ID, { nullable: true, description: "The team that will own it (the member role needed); none: the caller's own" })
  teamId?: string | null;
}

@InputType('UpdateTemplateInput', { description: 'Only the given parts change; the template gets a new version' })
export class UpdateTemplateInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  recordType?: string | null;

  @Field(() => String, { nullable: true })
  title?: string | null;

  @Field(() => String, { nullable: true })
  body?: string | null;

  @Field(() => [TemplateFieldInput], { nullable: true })
  fields?: TemplateFieldInput[] | null;

  @Field(() => [TemplatePartyInput], { nullable: true })
  parties?: TemplatePartyInput[] | null;

  @Field(() => TemplateDefaultsInput, { nullable: true })
  defaults?: TemplateDefaultsInput | null;
}

@InputType('UseTemplateInput')
export class UseTemplateInput {
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'A value for each field: {"field_name": "text"}' })
  values?: Record<string, unknown> | null;

  @Field(() => [NamedPartyInput], { nullable: true, description: "One per party role, in the template's order" })
  parties?: NamedPartyInput[] | null;
}

@ObjectType('TemplateOrigin', { simpleResolvers: true, description: 'The template (and its version) a record was made from' })
export class TemplateOriginObject {
  @Field(() => ID)
  id!: string;

  @Field(() => Int)
  version!: number;
}
