import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { randomUUID } from 'node:crypto';
import { OptionalProps } from '@mikro-orm/core';
import { Identity } from './entities.js';
import type { ConnectorScope } from '../vocabulary.js';

/**
 * A hosted assistant connected to an identity through the OAuth connector flow: one per consent
 * (one authorization grant). It ends when revoked (disconnect, refresh-token reuse, code reuse) or
 * 90 days after consent; refreshing never moves `expiresAt`.
 */
@Entity({ tableName: 'connectors' })
@Index({ properties: ['identity', 'revokedAt'] })
export class Connector {
  [OptionalProps]?: 'lastUsedAt' | 'revokedAt' | 'createdAt' | 'teams' | 'teamsChosenAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** The authorization server's grant id: tokens name their grant, not the connector. */
  @Property({ type: 'text', unique: true })
  grantId!: string;

  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  identity!: string;

  @Property({ type: 'text' })
  clientId!: string;

  /** The name the client registered (self-declared, shown as such). */
  @Property({ type: 'text', nullable: true })
  clientName: string | null = null;

  /** Origin of the redirect URI the consent was given for. */
  @Property({ type: 'text' })
  redirectOrigin!: string;

  @Property({ type: 'text[]' })
  scopes!: ConnectorScope[];

  /** The teams the person let the connector act for (their memberships still decide, at each call). */
  @Property({ type: 'text[]', defaultRaw: "'{}'" })
  teams: string[] = [];

  /** When they chose (at consent, once): until then the connection is still being given. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  teamsChosenAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/**
 * What the OAuth authorization server stores (clients, interactions, grants, codes, tokens), one row
 * per stored object, shared by every instance. `idHash` is the SHA-256 of the object's id: for
 * codes and tokens the id is the secret itself, which is never stored.
 */
@Entity({ tableName: 'oauth_payloads' })
@Unique({ properties: ['model', 'idHash'] })
export class OAuthPayload {
  [OptionalProps]?: 'grantId' | 'uid' | 'userCode' | 'expiresAt' | 'consumedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text' })
  model!: string;

  @Property({ type: 'text' })
  idHash!: string;

  @Property({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Property({ type: 'text', nullable: true })
  @Index()
  grantId: string | null = null;

  @Property({ type: 'text', nullable: true })
  @Index()
  uid: string | null = null;

  @Property({ type: 'text', nullable: true })
  userCode: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  @Index()
  expiresAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  consumedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}

/** The authorization server's own keys (cookie signing, the JSON Web Key set), made once and shared by every instance. */
@Entity({ tableName: 'oauth_server_keys' })
export class OAuthServerKey {
  [OptionalProps]?: 'createdAt';

  @PrimaryKey({ type: 'text' })
  name!: string;

  @Property({ type: 'jsonb', hidden: true })
  value!: unknown;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();
}
