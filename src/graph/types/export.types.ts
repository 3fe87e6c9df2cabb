import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EXPORT_PARTS, EXPORT_STATUSES, type ExportPart, type ExportStatus } from '../../domain/exports/entities.js';
import { asEnum } from './enums.js';

const ExportStatusEnum = asEnum(EXPORT_STATUSES);
const ExportPartEnum = asEnum(EXPORT_PARTS);

registerEnumType(ExportStatusEnum, { name: 'ExportStatus', description: 'queued, running (its PDFs being made sure of), ready (downloadable), failed, or expired (EXPORT_TTL_SECONDS after it was ready)' });
registerEnumType(ExportPartEnum, { name: 'ExportPart', description: "What the ZIP holds of each record beside the manifest: its sealed PDF, its audit trail, its sealed metadata" });

@ObjectType('RecordExport', { simpleResolvers: true, description: 'A bulk export of sealed records: its records are chosen when it is asked for, then its ZIP is prepared and downloadable by single-use links until it expires' })
export class RecordExportObject {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: "The team whose records it holds (null: the caller's own records and those it takes part in)" })
  teamId!: string | null;

  @Field(() => ExportStatusEnum)
  status!: ExportStatus;

  @Field(() => [ExportPartEnum])
  include!: ExportPart[];

  @Field(() => Int, { description: 'How many records it holds' })
  total!: number;

  @Field(() => Int, { description: 'How many of them are prepared' })
  processed!: number;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  readyAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Once ready: when it can no longer be downloaded' })
  expiresAt!: Date | null;
}

@ObjectType('ExportDownload', { simpleResolvers: true, description: "A single-use link to an export's ZIP: the link is the proof (no credentials), good once and until expiresAt" })
export class ExportDownloadObject {
  @Field()
  url!: string;

  @Field(() => Date)
  expiresAt!: Date;
}

@InputType({ description: 'Which sealed records to export, and what of each' })
export class CreateExportInput {
  @Field(() => String, { nullable: true, description: 'Only records in this status: sealed or superseded (default: both)' })
  status?: string | null;

  @Field(() => Date, { nullable: true, description: 'Only records sealed at or after this time' })
  from?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only records sealed at or before this time' })
  to?: Date | null;

  @Field(() => ID, { nullable: true, description: "A team's records (its member role); a team's key exports its team's" })
  teamId?: string | null;

  @Field(() => [ExportPartEnum], { nullable: true, description: 'Default: every part' })
  include?: ExportPart[] | null;
}
