import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EXECUTION_STATUSES, METHOD_STATUSES, SIGNATURE_METHOD_TYPES } from '../../domain/ceremonies/entities.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IdenticonObject } from './artifact.types.js';
import { asEnum } from './enums.js';

export const SignatureMethodTypeEnum = asEnum(SIGNATURE_METHOD_TYPES);
export const ExecutionStatusEnum = asEnum(EXECUTION_STATUSES);
export const MethodStatusEnum = asEnum(METHOD_STATUSES);
registerEnumType(SignatureMethodTypeEnum, { name: 'SignatureMethodType' });
registerEnumType(ExecutionStatusEnum, { name: 'SignatureExecutionStatus' });
registerEnumType(MethodStatusEnum, { name: 'SignatureMethodStatus' });

@ObjectType('SignatureMethodStep', { simpleResolvers: true, description: 'What the signer is asked to do next' })
export class SignatureMethodStepObject {
  @Field()
  prompt!: string;

  @Field(() => String, { nullable: true })
  proofText!: string | null;

  @Field(() => String, { nullable: true })
  proofTitle!: string | null;

  @Field(() => String, { nullable: true })
  url!: string | null;

  @Field(() => String, { nullable: true })
  challenge!: string | null;
}

@ObjectType('SignatureMethodState', { simpleResolvers: true })
export class SignatureMethodStateObject {
  @Field(() => SignatureMethodTypeEnum)
  methodType!: string;

  @Field(() => MethodStatusEnum)
  status!: string;

  @Field(() => SignatureMethodStepObject, { nullable: true })
  step!: SignatureMethodStepObject | null;

  @Field(() => Date, { nullable: true })
  satisfiedAt!: Date | null;
}

@ObjectType('SignatureExecution', { simpleResolvers: true, description: "One participant's signature for one record version" })
export class SignatureExecutionObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  recordId!: string;

  @Field(() => ID)
  partyId!: string;

  @Field(() => Int)
  recordVersion!: number;

  @Field(() => ExecutionStatusEnum)
  status!: string;

  @Field(() => Int)
  requiredSignatureMethodCount!: number;

  @Field(() => Int, { description: 'Distinct methods satisfied for this version' })
  satisfiedMethodCount!: number;

  @Field()
  canFinalize!: boolean;

  @Field(() => [SignatureMethodStateObject])
  methods!: SignatureMethodStateObject[];

  @Field(() => Date, { nullable: true })
  finalizedAt!: Date | null;

  @Field(() => IdenticonObject, { nullable: true })
  signatureIdenticon!: IdenticonObject | null;
}

@ObjectType('SignatureProgress', { simpleResolvers: true, description: 'A step of a signature ceremony on a record, pushed live' })
export class SignatureProgressObject {
  @Field(() => ID)
  recordId!: string;

  @Field(() => ID)
  executionId!: string;

  @Field(() => ID)
  participantId!: string;

  @Field({ description: 'execution_started, method_started, method_pending, method_satisfied, method_failed, method_cancelled or finalized' })
  event!: string;

  @Field(() => SignatureMethodTypeEnum, { nullable: true })
  methodType!: string | null;

  @Field(() => ExecutionStatusEnum)
  executionStatus!: string;

  @Field(() => Int)
  recordVersion!: number;

  @Field(() => Int)
  satisfiedMethodCount!: number;

  @Field(() => Int)
  requiredSignatureMethodCount!: number;

  @Field()
  canFinalize!: boolean;

  @Field()
  at!: string;
}

@InputType('SignatureMethodInput', { description: 'Method input: code (email_otp), url (public proof posts), credential (webauthn_passkey), handle (start hint)' })
export class SignatureMethodInput {
  @Field(() => String, { nullable: true })
  code?: string | null;

  @Field(() => String, { nullable: true })
  url?: string | null;

  @Field(() => String, { nullable: true })
  handle?: string | null;

  @Field(() => String, { nullable: true, description: 'api_key: the confirmation issued at start' })
  confirmation?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'webauthn_passkey: the authenticator response' })
  credential?: Record<string, unknown> | null;
}

@InputType('FinalizeSignatureInput')
export class FinalizeSignatureInput {
  @Field(() => Boolean, { nullable: true, description: 'Required (true) when the record publishes verified party details on chain' })
  acknowledgePublicVerifiedParties?: boolean | null;
}
