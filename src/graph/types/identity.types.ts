import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ApiKeyScopeEnum, ConnectorScopeEnum, OtpPurposeEnum } from './enums.js';

@InputType('RequestOtpInput')
export class RequestOtpInput {
  @Field()
  email!: string;

  @Field(() => OtpPurposeEnum)
  purpose!: string;
}

@ObjectType('OtpRequest', { simpleResolvers: true, description: 'A code was mailed; the code itself is never returned' })
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

@ObjectType('Session', {
  simpleResolvers: true,
  description:
    'A verified code. For `authenticate` it carries a short-lived bearer session (access only, never a signature); ' +
    'for `agreement_confirmation` it only says the address is controlled: the token fields are null',
})
export class SessionObject {
  @Field()
  verified!: boolean;

  @Field(() => String, { nullable: true })
  accessToken!: string | null;

  @Field(() => String, { nullable: true })
  tokenType!: string | null;

  @Field(() => Int, { nullable: true })
  expiresIn!: number | null;

  @Field(() => ID, { nullable: true })
  identityId!: string | null;
}

@ObjectType('SignOut', { simpleResolvers: true, description: 'Sessions ended by a sign-out, at once on every instance' })
export class SignOutObject {
  @Field(() => Int, { description: 'How many sessions were ended (1 for this one; with everywhere, every live session of the identity)' })
  sessionsEnded!: number;
}

@InputType('VerifyMcpAuthenticationInput')
export class VerifyMcpAuthenticationInput {
  @Field(() => ID)
  verificationEventId!: string;

  @Field({ description: 'The six-digit code from the mail' })
  code!: string;

  @Field(() => Boolean, { nullable: true, defaultValue: false, description: 'Also return a manual transport token, for a client that cannot keep the MCP session id' })
  manualTransportToken?: boolean | null;
}

@ObjectType('McpAuthentication', { simpleResolvers: true, description: 'A retrieve-only grant on the MCP session; it proves access only, never a signature' })
export class McpAuthenticationObject {
  @Field()
  authenticated!: boolean;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => Int, { description: 'Seconds the grant lasts (at most 600)' })
  expiresIn!: number;

  @Field()
  sessionBound!: boolean;

  @Field(() => String, { nullable: true, description: 'Only when asked for: use it as `Authorization: Bearer` on /mcp only, for the same lifetime' })
  transportToken!: string | null;
}

@ObjectType('ApiKey', { simpleResolvers: true })
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

@ObjectType('CreatedApiKey', { simpleResolvers: true })
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

@ObjectType('Connector', { simpleResolvers: true, description: 'A hosted assistant connected through the OAuth connector flow' })
export class ConnectorObject {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'The OAuth client id the assistant registered' })
  clientId!: string;

  @Field(() => String, { nullable: true, description: 'The name the assistant registered (its own claim)' })
  clientName!: string | null;

  @Field({ description: 'Origin of the redirect address the consent was given for' })
  redirectOrigin!: string;

  @Field(() => [ConnectorScopeEnum])
  scopes!: string[];

  @Field(() => Date, { description: 'When the consent was given' })
  createdAt!: Date;

  @Field(() => Date, { description: 'End of the connection: 90 days after consent; refreshing never moves it' })
  expiresAt!: Date;

  @Field(() => Date, { nullable: true })
  lastUsedAt!: Date | null;
}

@ObjectType('ContactPoint', { simpleResolvers: true, description: 'A verified contact point of the caller’s identity' })
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

@ObjectType('AuthenticationStatus', { simpleResolvers: true })
export class AuthenticationStatusObject {
  @Field()
  authenticated!: boolean;

  @Field(() => String, { nullable: true, description: 'bearer, api_key, oauth or mcp_otp (an MCP authentication grant)' })
  authMethod!: string | null;

  @Field(() => [String])
  scopes!: string[];

  @Field(() => ID, { nullable: true })
  identityId!: string | null;

  @Field({ description: 'True for an MCP grant that rides on the MCP session id' })
  sessionBound!: boolean;
}
