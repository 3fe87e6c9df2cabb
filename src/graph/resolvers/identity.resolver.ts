import { described } from '../describe.js';
import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { ApiKeyService } from '../../domain/identity/api-key-service.js';
import type { IdentityService } from '../../domain/identity/identity-service.js';
import type { ConnectorGrants } from '../../domain/identity/connector-grants.js';
import type { GraphContext } from '../context.js';
import {
  ApiKeyObject,
  ConnectorObject,
  ContactPointObject,
  CreateApiKeyInput,
  CreatedApiKeyObject,
  LinkContactPointInput,
} from '../types/identity.types.js';

@Resolver()
export class IdentityResolver {
  constructor(
    private readonly deps: {
      identities: IdentityService;
      apiKeys: ApiKeyService;
      connectorGrants: ConnectorGrants;
    },
  ) {}

  @Query(() => [ContactPointObject], { description: described("The caller's verified contact points", 'identity.listContactPoints') })
  contactPoints(@Ctx() { principal }: GraphContext): Promise<ContactPointObject[]> {
    return this.deps.identities.contactPoints(principal);
  }

  @Mutation(() => ContactPointObject, { description: described('Links the address proven by a contact_point_link code', 'identity.linkContactPoint') })
  linkContactPoint(
    @Ctx() { principal }: GraphContext,
    @Arg('input', () => LinkContactPointInput) input: LinkContactPointInput,
  ): Promise<ContactPointObject> {
    return this.deps.identities.link(principal, input.verificationEventId, input.code);
  }

  @Query(() => [ApiKeyObject], { description: described('Active API keys of the caller', 'identity.listApiKeys') })
  apiKeys(@Ctx() { principal }: GraphContext): Promise<ApiKeyObject[]> {
    return this.deps.apiKeys.list(principal);
  }

  @Mutation(() => CreatedApiKeyObject, { description: described('Creates an API key; the full key is returned once', 'identity.createApiKey') })
  createApiKey(
    @Ctx() { principal }: GraphContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<CreatedApiKeyObject> {
    return this.deps.apiKeys.create(principal, input);
  }

  @Mutation(() => Boolean, { description: described('Revokes an API key at once', 'identity.revokeApiKey') })
  async revokeApiKey(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.deps.apiKeys.revoke(principal, id);
    return true;
  }

  @Query(() => [ConnectorObject], { description: described("Hosted assistants connected to the caller's identity (live connections only)", 'identity.listConnectors') })
  connectors(@Ctx() { principal }: GraphContext): Promise<ConnectorObject[]> {
    return this.deps.connectorGrants.list(principal);
  }

  @Mutation(() => Boolean, { description: described('Disconnects a hosted assistant: its access and refresh tokens stop working at once', 'identity.disconnectConnector') })
  async disconnectConnector(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.deps.connectorGrants.disconnect(principal, id);
    return true;
  }
}
