import type { NotarizationDetails, Participant, ParticipantRole, RecordStatus, RecordType, SignedRecord, SigningOrder } from './entities.js';
import { signersDue } from './signing-turn.js';
import type { TeamRole } from '../vocabulary.js';
import type { SignatureSummary } from '../ceremonies/signature-summary.js';
import type { IdenticonView } from '../ceremonies/execution-view.js';
import type { CounterView } from './counter-view.js';
import type { BlockchainView, SealedDocumentView, SealingView, ShareCardView } from '../sealing/sealing-view.js';
import { availableActions, findTransition, participantActions, type ActionContext, type ParticipantAction, type RecordAction } from './lifecycle.js';

/** A participant row as views need it (an entity or a row of the read model). */
export type ParticipantData = Pick<
  Participant,
  | 'id' | 'role' | 'position' | 'displayName' | 'contactPointType' | 'contactPointValue' | 'identity' | 'invitedAt' | 'confirmedAt'
  | 'confirmedVersion' | 'declinedAt' | 'declinedReason' | 'waivedAt' | 'removedAt'
>;

/** A record with its participants as views need it (an entity or a row of the read model). */
export type RecordData = Pick<
  SignedRecord,
  | 'id' | 'reference' | 'type' | 'status' | 'title' | 'body' | 'bodyHash' | 'summary' | 'language' | 'jurisdiction' | 'initiatedVia'
  | 'currentVersion' | 'requiredSignatureMethodCount' | 'lapseDays' | 'signingOrder' | 'remindersEnabled' | 'reminderEveryDays' | 'reminderBeforeExpiryDays' | 'onChainFullText' | 'onChainIncludeVerifiedParties' | 'metadata'
  | 'notarization' | 'initiatorIdentity' | 'teamId' | 'templateId' | 'templateVersion' | 'supersedesRecordId' | 'supersededByRecordId' | 'createdAt' | 'expiresAt' | 'sealedAt'
> & { participants: readonly ParticipantData[] };

/** A loaded entity as RecordData. */
export function recordData(record: SignedRecord): RecordData {
  const { id, reference, type, status, title, body, bodyHash, summary, language, jurisdiction, initiatedVia, currentVersion } = record;
  const { requiredSignatureMethodCount, lapseDays, signingOrder, onChainFullText, onChainIncludeVerifiedParties, metadata, notarization } = record;
  const { remindersEnabled, reminderEveryDays, reminderBeforeExpiryDays } = record;
  const { initiatorIdentity, teamId, templateId, templateVersion, supersedesRecordId, supersededByRecordId, createdAt, expiresAt, sealedAt } = record;
  return {
    ...{ id, reference, type, status, title, body, bodyHash, summary, language, jurisdiction, initiatedVia, currentVersion },
    ...{ requiredSignatureMethodCount, lapseDays, signingOrder, onChainFullText, onChainIncludeVerifiedParties, metadata, notarization },
    ...{ remindersEnabled, reminderEveryDays, reminderBeforeExpiryDays },
    ...{ initiatorIdentity, teamId, templateId, templateVersion, supersedesRecordId, supersededByRecordId, createdAt, expiresAt, sealedAt },
    participants: record.participants.getItems(),
  };
}

/** Who reads a record: decides which private participant data they see. */
export type Viewer = {
  identityId: string;
  /** `type:value` keys of the viewer's verified contact points. */
  contactKeys: ReadonlySet<string>;
  /** Which teams the viewer's credential acts for (domain/teams `teamScopeOf`). */
  teamScope: string;
  /** Those teams, with the viewer's role in each. */
  teams: ReadonlyMap<string, TeamRole>;
};

type PartyView = {
  id: string;
  role: ParticipantRole;
  displayName: string | null;
  contactPointType: string;
  contactPointValue: string | null;
  invitedAt: Date;
  confirmedAt: Date | null;
  confirmedVersion: number | null;
  declinedAt: Date | null;
  declinedReason: string | null;
  waivedAt: Date | null;
  /** The participant's finalized signature identicon for the current version (metadata only). */
  signatureIdenticon: IdenticonView | null;
  /** Where the participant stands in signing the current version (no method details). */
  signatureState: PartySignatureView;
  /** The participant-level moves the reader may make on this participant now (from the lifecycle table). */
  availableActions: ParticipantAction[];
};

type PartySignatureView = { status: 'not_started' | 'in_progress' | 'finalized'; satisfiedMethodCount: number; canFinalize: boolean };

type InitiatorSignatureView = {
  status: 'not_started' | 'in_progress' | 'finalized';
  requiredSignatureMethodCount: number;
  satisfiedMethodCount: number;
  canFinalize: boolean;
  confirmedVersion: number | null;
  finalizedAt: Date | null;
};

type WitnessSummaryView = { active: number; signed: number; declined: number; waived: number; maxActive: number };

type NotarizationView = NotarizationDetails & { text: string | null; coNotarizerCount: number };

export type RecordView = {
  id: string;
  /** The team that owns it, for the team's own readers (null for everyone else, and for a personal record). */
  teamId: string | null;
  /** The template and version it was made from (null when typed). */
  template: { id: string; version: number } | null;
  agrReference: string;
  type: RecordType;
  status: RecordStatus;
  title: string | null;
  body: string;
  bodyHash: string;
  summary: string | null;
  language: string | null;
  jurisdiction: string | null;
  initiatedVia: string;
  currentVersion: number;
  requiredSignatureMethodCount: number;
  lapseDays: number | null;
  signingOrder: SigningOrder;
  /**
   * Whose turn it is: the participants other than the initiator who may sign the current version
   * now (in sequential order one party, or the witnesses once every party signed); empty unless the
   * record is pending confirmation.
   */
  currentSignerIds: string[];
  /** Reminders to participants who have not signed: whether they go out, and the record's own days (null: the service defaults). */
  reminders: { enabled: boolean; everyDays: number | null; beforeExpiryDays: number | null };
  onChainFullText: boolean;
  onChainIncludeVerifiedParties: boolean;
  parties: PartyView[];
  activeCounter: CounterView | null;
  witnessSummary: WitnessSummaryView | null;
  supersedesAgrId: string | null;
  supersededByAgrId: string | null;
  /** The chain record of a sealed record (pending until anchored). */
  blockchain: BlockchainView | null;
  metadata: Record<string, unknown>;
  notarization: NotarizationView | null;
  llmAnalysis: Record<string, unknown> | null;
  initiatorSignature: InitiatorSignatureView | null;
  readyForSubmission: boolean | null;
  /** The moves the reader may make on the record now, computed from the lifecycle table. */
  availableActions: RecordAction[];
  /** Document identicon (from the seal's metadata hash), share card and sealed PDF, once each exists. */
  identicon: IdenticonView | null;
  shareCard: ShareCardView | null;
  document: SealedDocumentView | null;
  createdAt: Date;
  expiresAt: Date | null;
  sealedAt: Date | null;
};

export function contactKey(type: string, value: string): string {
  return `${type}:${value}`;
}

/**
 * The viewer is the person who initiated the record and signs as its initiator. On a team's record
 * only while they are still in the team: a member who left (or was removed) no longer is.
 */
export function isInitiatorOf(record: Pick<RecordData, 'initiatorIdentity' | 'teamId'>, viewer: Viewer): boolean {
  return record.initiatorIdentity === viewer.identityId && (record.teamId === null || viewer.teams.has(record.teamId));
}

/**
 * The viewer may manage the record the way its initiator may (edit, submit, resend, cancel, amend,
 * resolve counters), never sign for them: its initiator; on a team's record, its initiator while a
 * member or admin, and any admin of the team (domain/teams: what each role may do).
 */
export function actsAsInitiator(record: Pick<RecordData, 'initiatorIdentity' | 'teamId'>, viewer: Viewer): boolean {
  if (record.teamId === null) return record.initiatorIdentity === viewer.identityId;
  const role = viewer.teams.get(record.teamId);
  return role === 'admin' || (role === 'member' && record.initiatorIdentity === viewer.identityId);
}

/** Whether this participant row is the viewer (linked identity or one of the viewer's contact points). */
export function isViewerParticipant(participant: Pick<Participant, 'identity' | 'contactPointType' | 'contactPointValue'>, viewer: Viewer): boolean {
  return (
    participant.identity === viewer.identityId ||
    (participant.contactPointValue !== null &&
      viewer.contactKeys.has(contactKey(participant.contactPointType, participant.contactPointValue)))
  );
}

const MAX_ACTIVE_WITNESSES = 5;

/**
 * The record as a reader in its identity graph sees it. Contact values: the initiator sees every
 * participant's (they entered them); any other reader sees only the rows that are themselves.
 */
export function toRecordView(
  record: RecordData,
  viewer: Viewer,
  signatures: ReadonlyMap<string, SignatureSummary> = new Map(),
  activeCounter: CounterView | null = null,
  sealing: SealingView | null = null,
): RecordView {
  const participants = record.participants.filter((p) => p.removedAt === null);
  const initiator = participants.find((p) => p.role === 'initiator') ?? null;
  const viewerIsInitiator = isInitiatorOf(record, viewer);
  const teamRole = record.teamId === null ? undefined : viewer.teams.get(record.teamId);
  // The initiator and, on a team's record, the team's readers see every participant's contact value.
  const seesContacts = viewerIsInitiator || teamRole !== undefined;
  const witnesses = participants.filter((p) => p.role === 'witness');
  const parties = participants.filter((p) => p.role === 'party');
  const hasWitnessRole = record.type === 'witnessed_agreement' || witnesses.length > 0;
  const readyForSubmission = record.status === 'draft' ? !findTransition('draft', 'submit')!.refusal?.({ type: record.type, currentVersion: record.currentVersion, participants }) : null;
  const actions: ActionContext = {
    type: record.type,
    status: record.status,
    currentVersion: record.currentVersion,
    participants,
    isInitiator: viewerIsInitiator,
    managesAsInitiator: actsAsInitiator(record, viewer),
    readerRows: new Set(participants.filter((p) => isViewerParticipant(p, viewer)).map((p) => p.id)),
    counterProposerId: activeCounter?.status === 'pending' ? activeCounter.proposedByParticipantId : null,
    signingOrder: record.signingOrder,
  };

  return {
    id: record.id,
    teamId: teamRole === undefined ? null : record.teamId,
    template: record.templateId === null ? null : { id: record.templateId, version: record.templateVersion ?? 1 },
    agrReference: record.reference,
    type: record.type,
    status: record.status,
    title: record.title,
    body: record.body,
    bodyHash: record.bodyHash,
    summary: record.summary,
    language: record.language,
    jurisdiction: record.jurisdiction,
    initiatedVia: record.initiatedVia,
    currentVersion: record.currentVersion,
    requiredSignatureMethodCount: record.requiredSignatureMethodCount,
    lapseDays: record.lapseDays,
    signingOrder: record.signingOrder,
    reminders: { enabled: record.remindersEnabled, everyDays: record.reminderEveryDays, beforeExpiryDays: record.reminderBeforeExpiryDays },
    currentSignerIds: record.status === 'pending_confirmation' ? signersDue(record.signingOrder, participants, record.currentVersion).map((p) => p.id) : [],
    onChainFullText: record.onChainFullText,
    onChainIncludeVerifiedParties: record.onChainIncludeVerifiedParties,
    parties: participants.map((p) => ({
      id: p.id,
      role: p.role,
      displayName: p.displayName,
      contactPointType: p.contactPointType,
      contactPointValue: seesContacts || isViewerParticipant(p, viewer) ? p.contactPointValue : null,
      invitedAt: p.invitedAt,
      confirmedAt: p.confirmedAt,
      confirmedVersion: p.confirmedVersion,
      declinedAt: p.declinedAt,
      declinedReason: p.declinedReason,
      waivedAt: p.waivedAt,
      signatureIdenticon: p.confirmedVersion === record.currentVersion ? (signatures.get(p.id)?.identicon ?? null) : null,
      signatureState: partySignature(record, p, signatures.get(p.id)),
      availableActions: participantActions(actions, p),
    })),
    activeCounter,
    witnessSummary: hasWitnessRole
      ? {
          active: witnesses.filter((w) => !w.declinedAt && !w.waivedAt).length,
          signed: witnesses.filter((w) => w.confirmedVersion === record.currentVersion).length,
          declined: witnesses.filter((w) => w.declinedAt).length,
          waived: witnesses.filter((w) => w.waivedAt).length,
          maxActive: MAX_ACTIVE_WITNESSES,
        }
      : null,
    supersedesAgrId: record.supersedesRecordId,
    supersededByAgrId: record.supersededByRecordId,
    blockchain: sealing?.blockchain ?? null,
    metadata: record.metadata,
    notarization: record.notarization
      ? {
          ...record.notarization,
          text: record.notarization.contentType === 'text' ? record.body : null,
          coNotarizerCount: parties.length,
        }
      : null,
    llmAnalysis: null,
    initiatorSignature: initiator ? initiatorSignature(record, initiator, signatures.get(initiator.id)) : null,
    readyForSubmission,
    availableActions: availableActions(actions),
    identicon: sealing?.identicon ?? null,
    shareCard: sealing?.shareCard ?? null,
    document: sealing?.document ?? null,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    sealedAt: record.sealedAt,
  };
}

function partySignature(record: RecordData, participant: ParticipantData, summary: SignatureSummary | undefined): PartySignatureView {
  if (participant.confirmedVersion === record.currentVersion) return { status: 'finalized', satisfiedMethodCount: summary?.satisfiedMethodCount ?? 0, canFinalize: false };
  return summary
    ? { status: 'in_progress', satisfiedMethodCount: summary.satisfiedMethodCount, canFinalize: summary.canFinalize }
    : { status: 'not_started', satisfiedMethodCount: 0, canFinalize: false };
}

function initiatorSignature(record: RecordData, initiator: ParticipantData, summary: SignatureSummary | undefined): InitiatorSignatureView {
  const finalized = initiator.confirmedVersion === record.currentVersion;
  return {
    status: finalized ? 'finalized' : summary ? 'in_progress' : 'not_started',
    requiredSignatureMethodCount: record.requiredSignatureMethodCount,
    satisfiedMethodCount: summary?.satisfiedMethodCount ?? 0,
    canFinalize: !finalized && (summary?.canFinalize ?? false),
    confirmedVersion: initiator.confirmedVersion,
    finalizedAt: finalized ? initiator.confirmedAt : null,
  };
}
