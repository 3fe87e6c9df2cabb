import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EXECUTION_STATUSES, METHOD_STATUSES, SIGNATURE_METHOD_TYPES } from '../../domain/ceremonies/entities.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { IdenticonObject } from './artifact.types.js';
import { McpAuthenticationObject } from './identity.types.js';
import { asEnum } from './enums.js';

export const SignatureMethodTypeEnum = asEnum(SIGNATURE_METHOD_TYPES);
const ExecutionStatusEnum = asEnum(EXECUTION_STATUSES);
const MethodStatusEnum = asEnum(METHOD_STATUSES);
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

  @Field(() => String, { nullable: true, description: 'Where this event stands: give it as `after` when subscribing again to resume after it (opaque; null only from an instance of an older version)' })
  cursor!: string | null;
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

@ObjectType('SecretInputLink', { simpleResolvers: true, description: 'A link where the human enters a signature method\'s secret input (the mailed code, the passkey) on the service\'s page (MCP URL-mode elicitation)' })
export class SecretInputLinkObject {
  @Field(() => ID, { description: 'The elicitation id' })
  elicitationId!: string;

  @Field({ description: 'The page, on PUBLIC_BASE_URL; single use; its ticket is in the fragment' })
  url!: string;

  @Field(() => Date)
  expiresAt!: Date;
}

@ObjectType('SecretInputOpening', { simpleResolvers: true })
export class SecretInputOpeningObject {
  @Field(() => SecretInputLinkObject, { nullable: true, description: 'Null when the method is already satisfied' })
  link!: SecretInputLinkObject | null;

  @Field(() => SignatureExecutionObject)
  execution!: SignatureExecutionObject;
}

@ObjectType('SecretInputRequest', { simpleResolvers: true, description: 'What the secret-input page shows: the record the human is about to sign and the method\'s step' })
export class SecretInputRequestObject {
  @Field(() => ID)
  elicitationId!: string;

  @Field({ description: '`signature`: a signature method\'s input for a record version; `sign_in`: a sign-in code for the assistant\'s session (retrieve only)' })
  purpose!: string;

  @Field(() => String, { nullable: true })
  agrReference!: string | null;

  @Field(() => String, { nullable: true })
  title!: string | null;

  @Field(() => Int, { nullable: true })
  recordVersion!: number | null;

  @Field(() => SignatureMethodTypeEnum, { nullable: true })
  methodType!: string | null;

  @Field(() => String, { nullable: true, description: 'sign_in: the address the code was mailed to, masked' })
  destination!: string | null;

  @Field(() => String, { nullable: true })
  prompt!: string | null;

  @Field(() => String, { nullable: true, description: 'webauthn_passkey: the options for the authenticator (JSON)' })
  challenge!: string | null;

  @Field(() => Date)
  expiresAt!: Date;

  @Field({ description: 'The input was given: the method is satisfied' })
  completed!: boolean;
}

@InputType('CompleteSecretInputInput')
export class CompleteSecretInputInput {
  @Field({ description: 'The ticket from the link\'s fragment' })
  ticket!: string;

  @Field({ description: 'A random key the browser keeps: the first browser to open a link keeps it' })
  browserKey!: string;

  @Field(() => String, { nullable: true, description: 'email_otp: the six-digit signature code' })
  code?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'webauthn_passkey: the authenticator response as JSON' })
  credential?: Record<string, unknown> | null;
}

@ObjectType('SignInSecretInputOpening', { simpleResolvers: true })
export class SignInSecretInputOpeningObject {
  @Field(() => SecretInputLinkObject, { nullable: true, description: 'Null once the human entered the code on the page: the grant is open' })
  link!: SecretInputLinkObject | null;

  @Field(() => McpAuthenticationObject, { nullable: true })
  grant!: McpAuthenticationObject | null;
}
