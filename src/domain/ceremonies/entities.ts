import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { OptionalProps, type Rel } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { Participant, SignedRecord } from '../records/entities.js';
import {
  SIGNATURE_EXECUTION_STATUSES as EXECUTION_STATUSES,
  SIGNATURE_METHOD_STATUSES as METHOD_STATUSES,
  SIGNATURE_METHOD_TYPES,
} from '../vocabulary.js';
import { notifyRecordsChanged } from '../shared/record-changes.js';

export { EXECUTION_STATUSES, METHOD_STATUSES, SIGNATURE_METHOD_TYPES };

export type SignatureMethodType = (typeof SIGNATURE_METHOD_TYPES)[number];

export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export type MethodStatus = (typeof METHOD_STATUSES)[number];

/** What the signer is asked to do next for a method. */
export type MethodStep = {
  prompt: string;
  proofText: string | null;
  proofTitle: string | null;
  url: string | null;
  challenge: string | null;
};

export type SignatureEvidence = { methodType: SignatureMethodType; satisfiedAt: string; evidenceHash: string };

export type IdenticonData = { kind: 'document' | 'signature'; digest: string; shortHash: string; width: number; height: number; altText: string; svg: string };

/**
 * One participant's signature for one version of a record: the distinct methods satisfied so far
 * and, once finalized, the evidence bound to that version.
 */
@Entity({ tableName: 'signature_executions', triggers: [notifyRecordsChanged] })
@Unique({ properties: ['participant', 'recordVersion'] })
export class SignatureExecution {
  [OptionalProps]?: 'status' | 'createdAt' | 'updatedAt' | 'finalizedAt' | 'evidence' | 'identicon';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => SignedRecord, { deleteRule: 'cascade' })
  @Index()
  record!: Rel<SignedRecord>;

  @ManyToOne(() => Participant, { deleteRule: 'cascade' })
  participant!: Rel<Participant>;

  @Property({ type: 'integer' })
  recordVersion!: number;

  @Enum({ items: () => EXECUTION_STATUSES, nativeEnumName: 'signature_execution_status' })
  status: ExecutionStatus = 'in_progress';

  @Property({ type: 'smallint' })
  requiredMethodCount!: number;

  @Property({ type: 'json', nullable: true })
  evidence: SignatureEvidence[] | null = null;

  @Property({ type: 'json', nullable: true })
  identicon: IdenticonData | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finalizedAt: Date | null = null;
}

/** One method within an execution. Private method state (event ids, nonces) never leaves the domain. */
@Entity({ tableName: 'signature_methods', triggers: [notifyRecordsChanged] })
// The messenger webhook looks pending challenges up by their text.
@Index({
  name: 'signature_methods_pending_messenger_challenge_index',
  expression: `create index "signature_methods_pending_messenger_challenge_index" on "signature_methods" (("state"->>'challenge')) where "method_type" = 'messenger' and "status" = 'pending'`,
})
@Unique({ properties: ['execution', 'methodType'] })
export class SignatureMethod {
  [OptionalProps]?: 'status' | 'step' | 'state' | 'evidenceHash' | 'failureReason' | 'satisfiedAt' | 'createdAt' | 'updatedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => SignatureExecution, { deleteRule: 'cascade' })
  execution!: Rel<SignatureExecution>;

  @Property({ type: 'text' })
  methodType!: SignatureMethodType;

  @Property({ type: 'text' })
  status: MethodStatus = 'pending';

  @Property({ type: 'json', nullable: true })
  step: MethodStep | null = null;

  @Property({ type: 'json', hidden: true })
  state: Record<string, unknown> = {};

  @Property({ type: 'text', nullable: true })
  evidenceHash: string | null = null;

  @Property({ type: 'text', nullable: true })
  failureReason: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  satisfiedAt: Date | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}

/** A WebAuthn credential registered by an identity (passkey), used for `webauthn_passkey` signatures. */
@Entity({ tableName: 'passkey_credentials' })
export class PasskeyCredential {
  [OptionalProps]?: 'counter' | 'transports' | 'createdAt' | 'lastUsedAt';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'uuid' })
  @Index()
  identityId!: string;

  /** base64url credential id, as the authenticator reports it. */
  @Property({ type: 'text', unique: true })
  credentialId!: string;

  /** base64url COSE public key. */
  @Property({ type: 'text' })
  publicKey!: string;

  @Property({ type: 'bigint' })
  counter: number = 0;

  @Property({ type: 'text[]' })
  transports: string[] = [];

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;
}

/** Messenger platform updates already processed: the webhook deduplicates on the update id. */
@Entity({ tableName: 'messenger_updates' })
export class MessengerUpdate {
  [OptionalProps]?: 'receivedAt';

  @PrimaryKey({ type: 'text' })
  updateId!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  receivedAt: Date = new Date();
}

/** Chat ids the bot has learned from inbound messages (a bot writes only to people who wrote first). */
@Entity({ tableName: 'messenger_chats' })
export class MessengerChat {
  [OptionalProps]?: 'updatedAt';

  /** Normalized username, or the numeric user id. */
  @PrimaryKey({ type: 'text' })
  handle!: string;

  @Property({ type: 'text' })
  chatId!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date = new Date();
}
