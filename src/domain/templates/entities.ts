import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Identity } from '../identity/entities.js';
import type { RecordType } from '../records/entities.js';
import type { SigningOrder } from '../vocabulary.js';

/** A placeholder of a template's text: `{{name}}` in its title or body. */
export type TemplateField = { name: string; label: string; required: boolean; maxLength: number | null };

/** A role the person using the template fills: a party, or (witnessed agreements) a witness. */
export type TemplateParty = { label: string; role: 'party' | 'witness' };

/** What a record made from the template starts with. */
export type TemplateDefaults = {
  requiredSignatureMethodCount: number;
  lapseDays: number | null;
  onChainFullText: boolean;
  onChainIncludeVerifiedParties: boolean;
  /** Absent in templates written before signing orders existed: parallel. */
  signingOrder?: SigningOrder;
};

/**
 * A reusable record text with placeholders, owned by a person or a team (a team's id is an
 * identity's: its templates outlive their makers, as its keys do). Every change makes a new
 * `version`; records remember the version they came from, and a change never touches them.
 */
@Entity({ tableName: 'templates' })
@Index({ properties: ['owner', 'createdAt'] })
export class Template {
  [OptionalProps]?: 'version' | 'title' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** A person's identity, or a team's. */
  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  owner!: string;

  @ManyToOne(() => Identity, { mapToPk: true })
  createdBy!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  recordType!: RecordType;

  @Property({ type: 'text', nullable: true })
  title: string | null = null;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'json' })
  fields!: TemplateField[];

  @Property({ type: 'json' })
  parties!: TemplateParty[];

  @Property({ type: 'json' })
  defaults!: TemplateDefaults;

  @Property({ type: 'integer' })
  version: number = 1;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}
