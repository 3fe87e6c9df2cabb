import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { described } from '../describe.js';
import type { GraphContext } from '../context.js';
import type { TeamService } from '../../domain/teams/team-service.js';
import type { ApiKeyService } from '../../domain/identity/api-key-service.js';
import type { WebhookService } from '../../domain/webhooks/webhook-service.js';
import { ApiKeyObject, CreateApiKeyInput, CreatedApiKeyObject } from '../types/identity.types.js';
import { CreateWebhookInput, WebhookEndpointObject, WebhookEndpointWithSecretObject } from '../types/webhook.types.js';
import {
  CreateTeamInput,
  InviteTeamMemberInput,
  TeamActivityPageObject,
  TeamInvitationObject,
  TeamInvitationPreviewObject,
  TeamMemberObject,
  TeamObject,
  UpdateTeamInput,
  UpdateTeamMemberInput,
} from '../types/team.types.js';

@Resolver()
export class TeamResolver {
  constructor(
    private readonly deps: {
      teams: TeamService;
      apiKeys: ApiKeyService;
      webhooks: WebhookService;
    },
  ) {}

  @Query(() => [TeamObject], { description: described("The caller's teams, with the caller's role in each", 'teams.list') })
  teams(@Ctx() { principal }: GraphContext): Promise<TeamObject[]> {
    return this.deps.teams.list(principal);
  }

  @Query(() => TeamObject, { description: described('One team of the caller (any other answers not found)', 'teams.get') })
  team(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<TeamObject> {
    return this.deps.teams.get(principal, id);
  }

  @Mutation(() => TeamObject, { description: described('Creates a team; the caller is its first admin', 'teams.create') })
  createTeam(@Ctx() { principal }: GraphContext, @Arg('input', () => CreateTeamInput) input: CreateTeamInput): Promise<TeamObject> {
    return this.deps.teams.create(principal, input);
  }

  @Mutation(() => TeamObject, { description: described('Renames a team (admins)', 'teams.update') })
  updateTeam(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string, @Arg('input', () => UpdateTeamInput) input: UpdateTeamInput): Promise<TeamObject> {
    return this.deps.teams.update(principal, id, input);
  }

  @Mutation(() => Boolean, { description: described('Deletes a team that owns no record (admins)', 'teams.delete') })
  async deleteTeam(@Ctx() { principal }: GraphContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.deps.teams.remove(principal, id);
    return true;
  }

  @Query(() => [TeamMemberObject], { description: described("A team's members", 'teams.members') })
  teamMembers(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string): Promise<TeamMemberObject[]> {
    return this.deps.teams.members(principal, teamId);
  }

  @Mutation(() => TeamMemberObject, { description: described("Changes a member's role (admins; a team keeps one admin)", 'teams.updateMember') })
  updateTeamMember(
    @Ctx() { principal }: GraphContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('memberId', () => ID) memberId: string,
    @Arg('input', () => UpdateTeamMemberInput) input: UpdateTeamMemberInput,
  ): Promise<TeamMemberObject> {
    return this.deps.teams.updateMember(principal, teamId, memberId, input);
  }

  @Mutation(() => Boolean, { description: described('Removes a member (admins), or leaves (anyone, their own membership); access ends at once', 'teams.removeMember') })
  async removeTeamMember(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string, @Arg('memberId', () => ID) memberId: string): Promise<boolean> {
    await this.deps.teams.removeMember(principal, teamId, memberId);
    return true;
  }

  @Mutation(() => TeamInvitationObject, { description: described('Mails an invitation with a single-use link (admins)', 'teams.invite') })
  inviteTeamMember(
    @Ctx() { principal }: GraphContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('input', () => InviteTeamMemberInput) input: InviteTeamMemberInput,
  ): Promise<TeamInvitationObject> {
    return this.deps.teams.invite(principal, teamId, input);
  }

  @Query(() => [TeamInvitationObject], { description: described("A team's pending invitations (admins)", 'teams.invitations') })
  teamInvitations(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string): Promise<TeamInvitationObject[]> {
    return this.deps.teams.invitations(principal, teamId);
  }

  @Mutation(() => Boolean, { description: described('Revokes a pending invitation: its link stops working (admins)', 'teams.revokeInvitation') })
  async revokeTeamInvitation(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string, @Arg('invitationId', () => ID) invitationId: string): Promise<boolean> {
    await this.deps.teams.revokeInvitation(principal, teamId, invitationId);
    return true;
  }

  @Query(() => TeamInvitationPreviewObject, { description: described("What a mailed invitation's token offers: the team's name and the role", 'teams.previewInvitation') })
  teamInvitation(@Ctx() { principal }: GraphContext, @Arg('token') token: string): Promise<TeamInvitationPreviewObject> {
    return this.deps.teams.previewInvitation(principal, token);
  }

  @Mutation(() => TeamObject, { description: described('Joins the team, signed in with the invited address', 'teams.acceptInvitation') })
  acceptTeamInvitation(@Ctx() { principal }: GraphContext, @Arg('token') token: string): Promise<TeamObject> {
    return this.deps.teams.acceptInvitation(principal, token);
  }

  @Mutation(() => Boolean, { description: described('Declines an invitation, signed in with the invited address', 'teams.declineInvitation') })
  async declineTeamInvitation(@Ctx() { principal }: GraphContext, @Arg('token') token: string): Promise<boolean> {
    await this.deps.teams.declineInvitation(principal, token);
    return true;
  }

  @Query(() => TeamActivityPageObject, { description: described("A team's activity log, oldest first, hash-chained", 'teams.activity') })
  async teamActivity(
    @Ctx() { principal }: GraphContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('limit', () => Int, { nullable: true, defaultValue: 50 }) limit: number,
    @Arg('offset', () => Int, { nullable: true, defaultValue: 0 }) offset: number,
  ): Promise<TeamActivityPageObject> {
    const page = await this.deps.teams.activity(principal, teamId, { limit, offset });
    return { total: page.total, entries: page.entries.map((entry) => ({ ...entry, details: JSON.stringify(entry.details) })) };
  }

  @Query(() => [ApiKeyObject], { description: described("A team's API keys (admins)", 'teams.listApiKeys') })
  teamApiKeys(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string): Promise<ApiKeyObject[]> {
    return this.deps.apiKeys.list(principal, teamId);
  }

  @Mutation(() => CreatedApiKeyObject, { description: described("Creates a team's API key: it acts for the team and outlives whoever made it (admins)", 'teams.createApiKey') })
  createTeamApiKey(
    @Ctx() { principal }: GraphContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
  ): Promise<CreatedApiKeyObject> {
    return this.deps.apiKeys.create(principal, input, teamId);
  }

  @Mutation(() => Boolean, { description: described("Revokes a team's API key at once (admins)", 'teams.revokeApiKey') })
  async revokeTeamApiKey(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string, @Arg('id', () => ID) id: string): Promise<boolean> {
    await this.deps.apiKeys.revoke(principal, id, teamId);
    return true;
  }

  @Query(() => [WebhookEndpointObject], { description: described("A team's webhook endpoints (admins); manage each with the webhook operations", 'teams.listWebhooks') })
  teamWebhooks(@Ctx() { principal }: GraphContext, @Arg('teamId', () => ID) teamId: string): Promise<WebhookEndpointObject[]> {
    return this.deps.webhooks.list(principal, teamId);
  }

  @Mutation(() => WebhookEndpointWithSecretObject, { description: described("Registers a team's webhook endpoint: it receives the team's records' events (admins)", 'teams.createWebhook') })
  createTeamWebhook(
    @Ctx() { principal }: GraphContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('input', () => CreateWebhookInput) input: CreateWebhookInput,
  ): Promise<WebhookEndpointWithSecretObject> {
    return this.deps.webhooks.create(principal, input, teamId);
  }
}
