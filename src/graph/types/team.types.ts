import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { TEAM_ROLES } from '../../domain/vocabulary.js';
import { TEAM_NAME_MAX } from '../../domain/teams/team-service.js';
import { asEnum } from './enums.js';

const TeamRoleEnum = asEnum(TEAM_ROLES);
registerEnumType(TeamRoleEnum, {
  name: 'TeamRole',
  description: `A member's role: ${TEAM_ROLES.join(', ')}. Admins manage the team, its members, keys and webhooks and act on every team record as its initiator may (never signing); members create and run records; viewers read them.`,
});

@ObjectType('Team', { simpleResolvers: true, description: 'An organization whose records, keys and webhooks belong to it rather than to one person' })
export class TeamObject {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => TeamRoleEnum, { description: "The caller's role in it" })
  role!: string;

  @Field(() => Int, { description: 'People in it' })
  memberCount!: number;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('TeamMember', { simpleResolvers: true })
export class TeamMemberObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  identityId!: string;

  @Field(() => String, { nullable: true, description: 'The address they joined with' })
  email!: string | null;

  @Field(() => TeamRoleEnum)
  role!: string;

  @Field(() => Date)
  joinedAt!: Date;
}

@ObjectType('TeamInvitation', { simpleResolvers: true, description: 'An invitation mailed to an address; its link works once, until it expires' })
export class TeamInvitationObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  teamId!: string;

  @Field()
  email!: string;

  @Field(() => TeamRoleEnum)
  role!: string;

  @Field({ description: 'pending, accepted, declined or revoked' })
  status!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field(() => Date)
  createdAt!: Date;
}

@ObjectType('TeamInvitationPreview', { simpleResolvers: true, description: "What an invitation's link shows its holder before they answer" })
export class TeamInvitationPreviewObject {
  @Field()
  teamName!: string;

  @Field(() => TeamRoleEnum)
  role!: string;

  @Field({ description: 'The invited address: sign in with it to accept' })
  email!: string;

  @Field(() => Date)
  expiresAt!: Date;

  @Field({ description: 'pending, accepted, declined, revoked or expired' })
  status!: string;
}

@ObjectType('TeamActivityEntry', { simpleResolvers: true, description: "One entry of a team's hash-chained activity log" })
export class TeamActivityEntryObject {
  @Field(() => Int)
  seq!: number;

  @Field(() => Date)
  at!: Date;

  @Field(() => ID, { nullable: true })
  actorIdentityId!: string | null;

  @Field()
  action!: string;

  @Field(() => String, { description: 'Its facts as a JSON object (ids, roles, an invited address, a URL)' })
  details!: string;

  @Field(() => String, { nullable: true })
  prevHash!: string | null;

  @Field()
  entryHash!: string;
}

@ObjectType('TeamActivityPage', { simpleResolvers: true })
export class TeamActivityPageObject {
  @Field(() => [TeamActivityEntryObject])
  entries!: TeamActivityEntryObject[];

  @Field(() => Int)
  total!: number;
}

@InputType('CreateTeamInput')
export class CreateTeamInput {
  @Field({ description: `1 to ${TEAM_NAME_MAX} characters` })
  name!: string;
}

@InputType('UpdateTeamInput')
export class UpdateTeamInput {
  @Field(() => String, { nullable: true })
  name?: string | null;
}

@InputType('InviteTeamMemberInput')
export class InviteTeamMemberInput {
  @Field()
  email!: string;

  @Field(() => TeamRoleEnum)
  role!: string;
}

@InputType('UpdateTeamMemberInput')
export class UpdateTeamMemberInput {
  @Field(() => TeamRoleEnum)
  role!: string;
}
