import {
  Entity,
  Enum,
  Index,
  ManyToOne,
  OneToMany,
  PrimaryKey,
  Property,
} from '@mikro-orm/decorators/legacy';
import { Collection, OptionalProps, type Rel } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Team } from '../teams/entities.js';
import { Identity } from '../identity/entities.js';
import { COUNTER_STATUSES, PARTY_CONTACT_POINT_TYPES as CONTACT_POINT_TYPES, PARTICIPANT_ROLES, RECORD_STATUSES, RECORD_TYPES, SIGNING_ORDERS, type SigningOrder } from '../vocabulary.js';
import { notifyRecordsChanged } from '../shared/record-changes.js';

export { CONTACT_POINT_TYPES, PARTICIPANT_ROLES, RECORD_STATUSES, RECORD_TYPES, SIGNING_ORDERS };
export type { SigningOrder };

export type RecordType = (typeof RECORD_TYPES)[number];

export type RecordStatus = (typeof RECORD_STATUSES)[number];

export type ParticipantRole = (typeof PARTICIPANT_ROLES)[number];

export type ParticipantContactPointType = (typeof CONTACT_POINT_TYPES)[number];

export type InitiatedVia = 'rest_api' | 'graphql' | 'mcp' | 'web';

/** Notarization details, kept as one document on the record. */
export type NotarizationDetails = {
  contentType: 'file' | 'text' | 'hash';
  contentHash: string;
  hashAlgorithm: 'sha256';
  filename: string | null;
  sizeBytes: number | null;
  mimeType: string | null;
  label: string | null;
  textPublic: boolean;
  signatureMode: 'pending_signature' | 'auto_seal';
  agentIdentifier: string | null;
};

/**
 * A record: agreement, declaration, witnessed agreement or notarization. Its status only changes
 * through the lifecycle table (records/lifecycle.ts).
 */
@Entity({ tableName: 'records', triggers: [notifyRecordsChanged] })
@Index({ properties: ['initiatorIdentity', 'createdAt'] })
@Index({ properties: ['teamId', 'createdAt'] })
// The expiry job's filter (records.expire-lapsed, every minute): status in (...) and expires_at <= now.
@Index({ properties: ['status', 'expiresAt'] })
export class SignedRecord {
  [OptionalProps]?:
    | 'status' | 'title' | 'summary' | 'language' | 'jurisdiction' | 'currentVersion' | 'requiredSignatureMethodCount'
    | 'lapseDays' | 'metadata' | 'notarization' | 'teamId' | 'templateId' | 'templateVersion' | 'supersedesRecordId' | 'supersededByRecordId' | 'createdAt'
    | 'updatedAt' | 'expiresAt' | 'sealedAt' | 'rowVersion' | 'signingOrder' | 'remindersEnabled' | 'reminderEveryDays' | 'reminderBeforeExpiryDays';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', unique: true })
  reference!: string;

  @Enum({ items: () => RECORD_TYPES, nativeEnumName: 'record_type' })
  type!: RecordType;

  @Enum({ items: () => RECORD_STATUSES, nativeEnumName: 'record_status' })
  status: RecordStatus = 'draft';

  @Property({ type: 'text', nullable: true })
  title: string | null = null;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'text' })
  bodyHash!: string;

  @Property({ type: 'text', nullable: true })
  summary: string | null = null;

  @Property({ type: 'text', nullable: true })
  language: string | null = null;

  @Property({ type: 'text', nullable: true })
  jurisdiction: string | null = null;

  @Property({ type: 'text' })
  initiatedVia!: InitiatedVia;

  @Property({ type: 'integer' })
  currentVersion: number = 1;

  @Property({ type: 'smallint' })
  requiredSignatureMethodCount: number = 1;

  @Property({ type: 'smallint', nullable: true })
  lapseDays: number | null = null;

  /** Whether invitations go out together or one party at a time (lifecycle.ts `signersDue`). Fixed at creation. */
  @Property({ type: 'text', default: 'parallel' })
  signingOrder: SigningOrder = 'parallel';

  /** Whether participants who have not signed get reminders (reminders.ts); the initiator may turn them off and on. */
  @Property({ type: 'boolean', default: true })
  remindersEnabled: boolean = true;

  /** Days between reminders; null: the service default (`REMINDER_EVERY_DAYS`). */
  @Property({ type: 'smallint', nullable: true })
  reminderEveryDays: number | null = null;

  /** One more reminder when the record expires within this many days (0: none); null: `REMINDER_BEFORE_EXPIRY_DAYS`. */
  @Property({ type: 'smallint', nullable: true })
  reminderBeforeExpiryDays: number | null = null;

  @Property({ type: 'boolean' })
  onChainFullText!: boolean;

  @Property({ type: 'boolean' })
  onChainIncludeVerifiedParties!: boolean;

  @Property({ type: 'json' })
  metadata: Record<string, unknown> = {};

  @Property({ type: 'json', nullable: true })
  notarization: NotarizationDetails | null = null;

  @ManyToOne(() => Identity, { mapToPk: true })
  initiatorIdentity!: string;

  /** The team that owns it (null: the initiator's own). Signing stays personal: the team never signs. */
  @ManyToOne(() => Team, { mapToPk: true, nullable: true, fieldName: 'team_id', deleteRule: 'restrict' })
  teamId: string | null = null;

  /** The template it was made from, and that template's version (no reference: a deleted template is history). */
  @Property({ type: 'uuid', nullable: true })
  templateId: string | null = null;

  @Property({ type: 'integer', nullable: true })
  templateVersion: number | null = null;

  @Property({ type: 'uuid', nullable: true })
  supersedesRecordId: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  supersededByRecordId: string | null = null;

  @OneToMany(() => Participant, (participant) => participant.record, { orderBy: { position: 'asc' } })
  participants = new Collection<Participant>(this);

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  sealedAt: Date | null = null;

  /** Optimistic lock: concurrent writers of one record never both win. */
  @Property({ type: 'integer', version: true })
  rowVersion!: number;
}

/** Someone who takes part in a record: the initiator, a party (or co-notarizer) or a witness. */
@Entity({ tableName: 'participants', triggers: [notifyRecordsChanged] })
@Index({ properties: ['contactPointType', 'contactPointValue'] })
export class Participant {
  [OptionalProps]?:
    | 'displayName' | 'contactPointValue' | 'identity' | 'invitedAt' | 'confirmedAt' | 'confirmedVersion' | 'declinedAt'
    | 'declinedReason' | 'waivedAt' | 'removedAt' | 'invitationSentAt' | 'reminderCount' | 'lastRemindedAt' | 'expiryRemindedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => SignedRecord, { deleteRule: 'cascade' })
  @Index()
  record!: Rel<SignedRecord>;

  @Enum({ items: () => PARTICIPANT_ROLES, nativeEnumName: 'participant_role' })
  role!: ParticipantRole;

  @Property({ type: 'smallint' })
  position!: number;

  @Property({ type: 'text', nullable: true })
  displayName: string | null = null;

  @Property({ type: 'text' })
  contactPointType!: ParticipantContactPointType;

  /** Normalized contact value; null when unknown. Shown only to readers in the relevant identity graph. */
  @Property({ type: 'text', nullable: true })
  contactPointValue: string | null = null;

  /** The identity this participant acts for, once known (always known for the initiator). */
  @ManyToOne(() => Identity, { mapToPk: true, nullable: true })
  @Index()
  identity: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  invitedAt: Date = new Date();

  /**
   * When this participant's invitation was written (to the mail outbox, or handed to the messenger);
   * null: not invited yet. `invitedAt` cannot say it: it is set when the row is named and again at
   * submission, while in a sequential record a party's invitation waits for their turn. Inviting
   * "whoever's turn has come and has no invitation yet" under the record's lock is what makes each
   * invitation go out exactly once, whichever change (a signature, a waiver) brings the turn.
   */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  invitationSentAt: Date | null = null;

  /** Reminders sent so far (reminders.ts), counted in the transaction that writes each reminder mail (or claims a messenger one). */
  @Property({ type: 'smallint', default: 0 })
  reminderCount: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastRemindedAt: Date | null = null;

  /** When the one "before expiry" reminder went out (null: not yet). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  expiryRemindedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  confirmedAt: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  confirmedVersion: number | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  declinedAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  declinedReason: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  waivedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  removedAt: Date | null = null;
}

export type CounterStatus = (typeof COUNTER_STATUSES)[number];

/** A proposed replacement body from a non-initiator party. At most one is pending per record. */
@Entity({ tableName: 'counter_proposals', triggers: [notifyRecordsChanged] })
@Index({ properties: ['record', 'status'] })
export class CounterProposal {
  [OptionalProps]?: 'status' | 'rawInput' | 'assistedText' | 'diffSummary' | 'resolvedBody' | 'createdAt' | 'resolvedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => SignedRecord, { deleteRule: 'cascade' })
  record!: Rel<SignedRecord>;

  @ManyToOne(() => Participant, { deleteRule: 'cascade' })
  proposedBy!: Rel<Participant>;

  /** The proposer's verified contact point (the spec's proposed_by_contact_point_id). */
  @Property({ type: 'uuid' })
  proposedByContactPointId!: string;

  @Property({ type: 'integer' })
  recordVersion!: number;

  @Property({ type: 'text' })
  status: CounterStatus = 'pending';

  @Property({ type: 'text', nullable: true })
  rawInput: string | null = null;

  @Property({ type: 'text', nullable: true })
  assistedText: string | null = null;

  @Property({ type: 'text' })
  proposedBody!: string;

  @Property({ type: 'text', nullable: true })
  diffSummary: string | null = null;

  @Property({ type: 'text', nullable: true })
  resolvedBody: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  resolvedAt: Date | null = null;
}
