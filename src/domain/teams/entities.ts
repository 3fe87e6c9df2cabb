import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Identity } from '../identity/entities.js';
import { notifyRecordsChanged } from '../shared/record-changes.js';
import type { TeamRole } from '../vocabulary.js';

/**
 * An organization. Its id is also an identity's: the team's own keys and webhooks belong to that
 * identity, so they outlive every person who made them, and the team is a member of itself (a
 * `member` row whose identity is the team), which is how its keys read and create its records.
 */
@Entity({ tableName: 'teams' })
export class Team {
  [OptionalProps]?: 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @Property({ type: 'text' })
  name!: string;

  @ManyToOne(() => Identity, { mapToPk: true })
  createdBy!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}

/**
 * Who belongs to a team, with which role. A removed member's row is deleted (the activity log keeps
 * that they were): every read rule joins this table, so access ends with the commit that removes it.
 * Writes notify every instance (`notifyRecordsChanged`): cached record views drop theirs at once.
 */
@Entity({ tableName: 'team_members', triggers: [notifyRecordsChanged] })
@Unique({ properties: ['team', 'identity'] })
@Index({ properties: ['identity'] })
export class TeamMember {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Team, { mapToPk: true, deleteRule: 'cascade' })
  team!: string;

  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  identity!: string;

  @Property({ type: 'text' })
  role!: TeamRole;

  /** The address the member joined with (their invitation's): what the members list shows. */
  @Property({ type: 'text', nullable: true })
  email: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

/** An invitation mailed to an address; only its token's hash is kept, and it is used once. */
@Entity({ tableName: 'team_invitations' })
@Index({ properties: ['team', 'createdAt'] })
export class TeamInvitation {
  [OptionalProps]?: 'status' | 'settledAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Team, { mapToPk: true, deleteRule: 'cascade' })
  team!: string;

  @Property({ type: 'text' })
  email!: string;

  @Property({ type: 'text' })
  role!: TeamRole;

  @Property({ type: 'text', unique: true, hidden: true })
  tokenHash!: string;

  @ManyToOne(() => Identity, { mapToPk: true })
  invitedBy!: string;

  @Property({ type: 'text' })
  status: InvitationStatus = 'pending';

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  settledAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/**
 * One entry of a team's activity log, hash-chained like a record's audit trail: each entry commits to
 * the previous entry's hash, so an edited, removed or reordered row is detectable.
 */
@Entity({ tableName: 'team_activity_entries' })
@Unique({ properties: ['team', 'seq'] })
export class TeamActivityEntry {
  [OptionalProps]?: 'id' | 'prevHash';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => Team, { mapToPk: true, deleteRule: 'cascade' })
  team!: string;

  @Property({ type: 'integer' })
  seq!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  at!: Date;

  /** Who made the change (an identity; null for the service itself). */
  @Property({ type: 'uuid', nullable: true })
  actorIdentityId: string | null = null;

  @Property({ type: 'text' })
  action!: string;

  /** Product facts only: a member's id and role, an invitation's id, role and address, a key's or webhook's id. */
  @Property({ type: 'json' })
  details!: Record<string, string | null>;

  @Property({ type: 'text', nullable: true })
  prevHash: string | null = null;

  @Property({ type: 'text' })
  entryHash!: string;
}
