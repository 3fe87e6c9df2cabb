import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Identity } from '../identity/entities.js';

export const EXPORT_STATUSES = ['queued', 'running', 'ready', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** What an export holds of each record, beside the manifest. */
export const EXPORT_PARTS = ['pdf', 'audit_trail', 'sealed_metadata'] as const;
export type ExportPart = (typeof EXPORT_PARTS)[number];

/** The record statuses an export may ask for: those of a sealed record (superseded ones stay sealed). */
export const EXPORTABLE_STATUSES = ['sealed', 'superseded'] as const;

/**
 * A bulk export of sealed records: the records it holds are frozen when it is asked for
 * (`ExportRecord`, chosen by the read rule of that moment); the export job then makes sure each one's
 * PDF exists, and the export is downloadable (by single-use links) until `expiresAt`. Owned by the
 * person (or team key) who asked; a team's export is its team's members' too.
 */
@Entity({ tableName: 'exports' })
@Index({ properties: ['owner', 'createdAt'] })
@Index({ properties: ['teamId', 'createdAt'] })
export class RecordExport {
  [OptionalProps]?: 'status' | 'total' | 'processed' | 'readyAt' | 'expiresAt' | 'failure' | 'createdAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  /** The identity that asked: a person, or a team's (its key). */
  @ManyToOne(() => Identity, { mapToPk: true, deleteRule: 'cascade' })
  owner!: string;

  @Property({ type: 'uuid', nullable: true })
  teamId: string | null = null;

  /** The filter as asked: a record status, and the sealing time from and to. */
  @Property({ type: 'text', nullable: true })
  filterStatus: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  filterFrom: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  filterTo: Date | null = null;

  @Property({ type: 'text[]', columnType: 'text[]' })
  include!: ExportPart[];

  @Property({ type: 'text', default: 'queued' })
  status: ExportStatus = 'queued';

  @Property({ type: 'integer', default: 0 })
  total = 0;

  @Property({ type: 'integer', default: 0 })
  processed = 0;

  /** Why a failed export failed (never a secret). */
  @Property({ type: 'text', nullable: true })
  failure: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  readyAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt: Date | null = null;
}

/** One record of an export, in the ZIP's order (`position`). */
@Entity({ tableName: 'export_records' })
export class ExportRecord {
  @ManyToOne(() => RecordExport, { primary: true, mapToPk: true, deleteRule: 'cascade', fieldName: 'export_id' })
  export!: string;

  @PrimaryKey({ type: 'integer' })
  position!: number;

  @Property({ type: 'uuid' })
  recordId!: string;
}
