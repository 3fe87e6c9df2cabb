import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps, PrimaryKeyProp } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Identity } from '../identity/entities.js';
import type { Principal } from '../identity/principal.js';
import type { InitiatedVia } from '../records/entities.js';
import type { ValidationIssue } from '../shared/errors.js';
import type { NamedPartyInput } from '../records/record-input.js';
import type { TemplateContent } from '../templates/template-draft.js';

export const BULK_SEND_STATUSES = ['queued', 'running', 'completed'] as const;
export type BulkSendStatus = (typeof BULK_SEND_STATUSES)[number];

export type BulkSendRowStatus = 'pending' | 'created' | 'submitted' | 'failed';

/** One row of a bulk send as given: the template's values and one party per role. */
export type BulkSendRowInput = { values: Record<string, unknown>; parties: NamedPartyInput[] };

/**
 * Many drafts from one template, made by a job: the template's content as it was when the batch was
 * accepted (a change or deletion of the template mid-run never changes the batch), the caller who
 * asked (the records' initiator) and the counts, kept with the rows' own statuses in one transaction.
 */
@Entity({ tableName: 'bulk_sends' })
@Index({ properties: ['owner', 'createdAt'] })
@Index({ properties: ['teamId', 'createdAt'] })
export class BulkSend {
  [OptionalProps]?: 'status' | 'teamId' | 'finishedAt' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** The person (or team key's team) who asked: the initiator of every record made. */
  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  owner!: string;

  /** A team's template makes the team's records; its members read the batch as they read its templates. */
  @Property({ type: 'uuid', nullable: true })
  teamId: string | null = null;

  @Property({ type: 'uuid' })
  templateId!: string;

  @Property({ type: 'integer' })
  templateVersion!: number;

  /** The template version's content, as the rows were checked against it. */
  @Property({ type: 'json' })
  template!: TemplateContent;

  /** The caller as authenticated at the request (ids and scopes only, never a secret): the job acts as them. */
  @Property({ type: 'json' })
  initiator!: Principal;

  @Property({ type: 'text' })
  via!: InitiatedVia;

  @Property({ type: 'boolean' })
  submit!: boolean;

  @Property({ type: 'text' })
  status: BulkSendStatus = 'queued';

  @Property({ type: 'integer' })
  total!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt: Date | null = null;
}

/**
 * A row of a bulk send: pending until the job makes its record, then created (or submitted) with the
 * record's id, written in the record's own transaction: a row's record exists exactly once. Rows
 * refused at the request are stored failed with their issues at once.
 */
@Entity({ tableName: 'bulk_send_rows' })
@Index({ properties: ['bulkSend', 'status'] })
export class BulkSendRow {
  [PrimaryKeyProp]?: ['bulkSend', 'rowNumber'];
  [OptionalProps]?: 'recordId' | 'issues';

  @ManyToOne(() => BulkSend, { primary: true, mapToPk: true, deleteRule: 'cascade' })
  bulkSend!: string;

  /** The data row's number as the person sees it in their file (1 = the first row after the header). */
  @PrimaryKey({ type: 'integer' })
  rowNumber!: number;

  @Property({ type: 'json' })
  input!: BulkSendRowInput;

  @Property({ type: 'text' })
  status!: BulkSendRowStatus;

  @Property({ type: 'uuid', nullable: true })
  recordId: string | null = null;

  @Property({ type: 'json', nullable: true })
  issues: ValidationIssue[] | null = null;
}
