import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ApiKeyScopeEnum, OtpPurposeEnum } from './enums.js';

@InputType('RequestOtpInput')
export class RequestOtpInput {
  @Field()
  email!: string;

  @Field(() => OtpPurposeEnum)
  purpose!: string;
}

@ObjectType('OtpRequest', { description: 'A code was mailed; the code itself is never returned' })
export class OtpRequestObject {
  @Field(() => ID)
  verificationEventId!: string;

  @Field(() => OtpPurposeEnum)
  purpose!: string;

  @Field(() => Date)
  expiresAt!: Date;
}

@InputType('VerifyOtpInput')
export class VerifyOtpInput {
  @Field(() => ID)
  verificationEventId!: string;

  @Field({ description: 'The six-digit code from the mail' })
  code!: string;
}

@ObjectType('Session', { description: 'A short-lived bearer session; it proves access only, never a signature' })
export class SessionObject {
  @Field()
  verified!: boolean;

  @Field()
  accessToken!: string;

  @Field()
  tokenType!: string;

  @Field(() => Int)
  expiresIn!: number;

  @Field(() => ID)
  identityId!: string;
}

@ObjectType('ApiKey')
export class ApiKeyObject {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Non-secret prefix that identifies the key' })
  keyPrefix!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => [ApiKeyScopeEnum])
  scopes!: string[];

  @Field(() => Date, { nullable: true })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('CreatedApiKey')
export class CreatedApiKeyObject {
  @Field(() => ApiKeyObject)
  apiKey!: ApiKeyObject;

  @Field({ description: 'The full key. Shown once, at creation only.' })
  key!: string;
}

@InputType('CreateApiKeyInput')
export class CreateApiKeyInput {
  @Field(() => [ApiKeyScopeEnum])
  scopes!: string[];

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => Date, { nullable: true })
  expiresAt?: Date | null;
}

@ObjectType('ContactPoint', { description: 'A verified contact point of the caller’s identity' })
export class ContactPointObject {
  @Field(() => ID)
  id!: string;

  @Field()
  type!: string;

  @Field()
  value!: string;

  @Field({ description: 'SHA-256 (hex) of the normalized value' })
  valueHash!: string;

  @Field(() => Date, { nullable: true })
  firstVerifiedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  lastVerifiedAt!: Date | null;

  @Field(() => Date)
  createdAt!: Date;
}

@InputType('LinkContactPointInput')
export class LinkContactPointInput {
  @Field(() => ID)
  verificationEventId!: string;

  @Field()
  code!: string;
}

@ObjectType('AuthenticationStatus')
export class AuthenticationStatusObject {
  @Field()
  authenticated!: boolean;

  @Field(() => String, { nullable: true, description: 'bearer or api_key' })
  authMethod!: string | null;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => ID, { nullable: true })
  identityId!: string | null;
}
