import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../shared/sql.js';
import type { SignatureSummary } from '../ceremonies/signature-summary.js';
import type { IdenticonData } from '../ceremonies/entities.js';
import { toSealingView, type SealingSettings, type SealingView } from '../sealing/sealing-view.js';
import type { AnchorStatus } from '../sealing/seal.js';
import type { AnchorBatchStatus } from '../anchoring/entities.js';
import type { ArtifactKind } from '../sealing/entities.js';
import type { CounterView } from './counter-view.js';
import type { ParticipantData, RecordData } from './record-view.js';
import type { Viewer } from './record-view.js';
import { viewerFor, viewerOf } from './record-access.js';
import type { TeamRole } from '../vocabulary.js';
import { membershipParams, TEAMS_OF_READER, type Reader } from '../teams/team-access.js';

/** Which records to read: one by id, one by AGR reference, or several by id. */
export type RecordKey = { id: string } | { reference: string } | { ids: readonly string[] };

/** Everything a reader's view of a record needs, read in one statement. */
export type RecordReadModel = {
  record: RecordData;
  signatures: Map<string, SignatureSummary>;
  counter: CounterView | null;
  sealing: SealingView | null;
};

type Row = Omit<RecordData, 'participants' | 'createdAt' | 'expiresAt' | 'sealedAt'> & {
  /** Timestamps arrive as text (the connection leaves them unparsed). */
  createdAt: string;
  expiresAt: string | null;
  sealedAt: string | null;
  participants: (Omit<ParticipantData, 'invitedAt' | 'confirmedAt' | 'declinedAt' | 'waivedAt' | 'removedAt'> & Record<'invitedAt' | 'confirmedAt' | 'declinedAt' | 'waivedAt' | 'removedAt', string | null>)[];
  signatures: { participantId: string; status: string; requiredMethodCount: number; satisfied: number; identicon: IdenticonData | null }[] | null;
  counter: (Omit<CounterView, 'createdAt' | 'resolvedAt'> & { createdAt: string; resolvedAt: string | null }) | null;
  seal: {
    metadataHash: string;
    anchorStatus: AnchorStatus;
    anchorRetryCount: number;
    anchorNextRetryAt: string | null;
    batch: { status: AnchorBatchStatus; network: string; txHash: string; blockNumber: string | number | null; blockTime: string | null } | null;
  } | null;
  artifacts: { kind: ArtifactKind; filename: string; contentType: string; width: number | null; height: number | null; sha256: string; byteSize: number; level: string | null; createdAt: string }[] | null;
  viewerContacts: [string, string][] | null;
  viewerTeams: Record<string, TeamRole>;
};

/**
 * The record's columns, its participants, the current version's signature summaries, the pending
 * counter-proposal, the seal with its anchor batch and artifacts (never their bytes), and the
 * viewer's verified contact points: one statement, whatever the number of records.
 */
const SELECT = `
  select r.id, r.reference, r.type, r.status, r.title, r.body, r.body_hash as "bodyHash", r.summary, r.language, r.jurisdiction,
    r.initiated_via as "initiatedVia", r.current_version as "currentVersion", r.required_signature_method_count as "requiredSignatureMethodCount",
    r.lapse_days as "lapseDays", r.signing_order as "signingOrder", r.reminders_enabled as "remindersEnabled", r.reminder_every_days as "reminderEveryDays", r.reminder_before_expiry_days as "reminderBeforeExpiryDays", r.on_chain_full_text as "onChainFullText", r.on_chain_include_verified_parties as "onChainIncludeVerifiedParties",
    r.metadata, r.notarization, r.initiator_identity_id as "initiatorIdentity", r.team_id as "teamId", r.template_id as "templateId", r.template_version as "templateVersion", r.supersedes_record_id as "supersedesRecordId",
    r.superseded_by_record_id as "supersededByRecordId", r.created_at as "createdAt", r.expires_at as "expiresAt", r.sealed_at as "sealedAt",
    (select coalesce(json_agg(json_build_object('id', p.id, 'role', p.role, 'position', p.position, 'displayName', p.display_name,
        'contactPointType', p.contact_point_type, 'contactPointValue', p.contact_point_value, 'identity', p.identity_id,
        'invitedAt', p.invited_at, 'confirmedAt', p.confirmed_at, 'confirmedVersion', p.confirmed_version, 'declinedAt', p.declined_at,
        'declinedReason', p.declined_reason, 'waivedAt', p.waived_at, 'removedAt', p.removed_at) order by p.position), '[]')
       from participants p where p.record_id = r.id) as participants,
    (select json_agg(json_build_object('participantId', e.participant_id, 'status', e.status, 'requiredMethodCount', e.required_method_count,
        'identicon', e.identicon,
        'satisfied', (select count(distinct m.method_type) from signature_methods m where m.execution_id = e.id and m.status = 'satisfied')))
       from signature_executions e where e.record_id = r.id and e.record_version = r.current_version and e.status <> 'superseded') as signatures,
    (select json_build_object('id', c.id, 'agreementId', c.record_id, 'status', c.status, 'proposedByContactPointId', c.proposed_by_contact_point_id,
        'proposedByParticipantId', c.proposed_by_id,
        'rawInput', c.raw_input, 'assistedText', c.assisted_text, 'proposedBody', c.proposed_body, 'diffSummary', c.diff_summary,
        'resolvedBody', c.resolved_body, 'createdAt', c.created_at, 'resolvedAt', c.resolved_at)
       from counter_proposals c where c.record_id = r.id and c.status = 'pending' and r.status = 'counter_under_review' limit 1) as counter,
    (select json_build_object('metadataHash', s.metadata_hash, 'anchorStatus', s.anchor_status, 'anchorRetryCount', s.anchor_retry_count,
        'anchorNextRetryAt', s.anchor_next_retry_at,
        'batch', (select json_build_object('status', b.status, 'network', b.network, 'txHash', b.tx_hash, 'blockNumber', b.block_number, 'blockTime', b.block_time)
                    from anchor_batches b where b.id = s.anchor_batch_id))
       from record_seals s where s.record_id = r.id and r.sealed_at is not null) as seal,
    (select json_agg(json_build_object('kind', a.kind, 'filename', a.filename, 'contentType', a.content_type, 'width', a.width, 'height', a.height,
        'sha256', a.sha256, 'byteSize', a.byte_size, 'level', a.level, 'createdAt', a.created_at))
       from sealed_artifacts a where a.record_id = r.id and r.sealed_at is not null) as artifacts,
    (select json_agg(json_build_array(cp.type, cp.value)) from contact_points cp where cp.identity_id = ?) as "viewerContacts",
    ${TEAMS_OF_READER} as "viewerTeams"
  from records r`;

const date = (value: string | null): Date | null => (value === null ? null : new Date(value));

/** Reads records with everything their views need, and the viewer (one statement). Order: as `key.ids`, or the one record. */
export async function readRecords(
  em: EntityManager,
  key: RecordKey,
  reader: Reader,
  settings: SealingSettings,
): Promise<{ viewer: Viewer; models: RecordReadModel[] }> {
  const [where, value] = 'id' in key ? ['r.id = ?', key.id] : 'reference' in key ? ['r.reference = ?', key.reference] : ['r.id = any(?::uuid[])', key.ids];
  const none = 'ids' in key && key.ids.length === 0;
  const rows = none ? [] : await preparedQuery<Row>(em, `${SELECT} where ${where}`, [reader.identityId, ...membershipParams(reader), value]);
  const viewer: Viewer = rows.length
    ? viewerOf(reader, (rows[0]!.viewerContacts ?? []).map(([type, value]) => ({ type, value })), rows[0]!.viewerTeams)
    : await viewerFor(em, reader);
  const models = rows.map((row) => toModel(row, settings));
  if ('ids' in key) {
    const position = new Map(key.ids.map((id, index) => [id, index]));
    models.sort((a, b) => position.get(a.record.id)! - position.get(b.record.id)!);
  }
  return { viewer, models };
}

function toModel(row: Row, settings: SealingSettings): RecordReadModel {
  const { participants, signatures, counter, seal, artifacts, viewerContacts: _contacts, viewerTeams: _teams, ...columns } = row;
  const record: RecordData = {
    ...columns,
    createdAt: new Date(columns.createdAt),
    expiresAt: date(columns.expiresAt),
    sealedAt: date(columns.sealedAt),
    participants: participants.map((p) => ({
      ...p,
      invitedAt: new Date(p.invitedAt!),
      confirmedAt: date(p.confirmedAt),
      declinedAt: date(p.declinedAt),
      waivedAt: date(p.waivedAt),
      removedAt: date(p.removedAt),
    })),
  };
  const summaries = new Map<string, SignatureSummary>();
  for (const e of signatures ?? []) {
    summaries.set(e.participantId, {
      status: e.status === 'finalized' ? 'finalized' : 'in_progress',
      satisfiedMethodCount: e.satisfied,
      canFinalize: e.status === 'in_progress' && e.satisfied >= e.requiredMethodCount,
      identicon: e.status === 'finalized' && e.identicon ? { ...e.identicon, available: true } : null,
    });
  }
  const sealing = seal
    ? toSealingView(
        record,
        { ...seal, anchorNextRetryAt: date(seal.anchorNextRetryAt) },
        seal.batch ? { ...seal.batch, blockNumber: seal.batch.blockNumber === null ? null : String(seal.batch.blockNumber), blockTime: date(seal.batch.blockTime) } : undefined,
        (artifacts ?? []).map((a) => ({ ...a, createdAt: new Date(a.createdAt) })),
        settings,
      )
    : null;
  return {
    record,
    signatures: summaries,
    counter: counter ? { ...counter, createdAt: new Date(counter.createdAt), resolvedAt: date(counter.resolvedAt) } : null,
    sealing,
  };
}
