import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { ApiKeyService } from '../../domain/identity/api-key-service.js';
import type { IdentityService } from '../../domain/identity/identity-service.js';
import type { GraphContext } from '../context.js';
import {
  ApiKeyObject,
  ContactPointObject,
  CreateApiKeyInput,
  CreatedApiKeyObject,
  LinkContactPointInput,
} from '../types/identity.types.js';

@Resolver()
export class IdentityResolver {
  constructor(
    private readonly identities: IdentityService,
    private readonly apiKeyService: ApiKeyService,
  ) {}

  @Query(() => [ContactPointObject], { description: "The caller's verified contact points (bearer only)" })
  contactPoints(@Ctx() { principal }: GraphContext): Promise<ContactPointObject[]> {
    return this.identities.contactPoints(principal);
  }

  @Mutation(() => ContactPointObject, { description: 'Links the address proven by a contact_point_link code (bearer only)' })
  linkContactPoint(
    @Ctx() { principal }: GraphContext,
    @Arg('input', () => LinkContactPointInput) input: LinkContactPointInput,
  ): Promise<ContactPointObject> {
    return this.identities.link(principal, input.verificationEventId, input.code);
  }

  @Query(() => [ApiKeyObject], { description: 'Active API keys of the caller (bearer only)' })
  apiKeys(@Ctx() { principal }: GraphContext): Promise<ApiKeyObject[]> {
    return this.apiKeyService.list(principal);
  }

  @Mutation(() => CreatedApiKeyObject, { description: 'Creates an API key; the full key is returned once (bearer only)' })
  createApiKey(
    @Ctx() { principal }: GraphContext,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<CreatedApiKeyObject> {
    return this.apiKeyService.create(principal, input);
  }

  @Mutation(() => Boolean, { description: 'Revokes an API key at once (bearer only)' })
  async revokeApiKey(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.apiKeyService.revoke(principal, id);
    return true;
  }
}
