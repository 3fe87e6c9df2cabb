/**
 * components.schemas of the served OpenAPI document: the resources the REST API returns, plus the
 * request bodies (request-schemas.ts) and error bodies; the newer capabilities' own schemas are
 * declared with their routes (routes/webhooks.ts, teams.ts, templates.ts, bulk-sends.ts, exports.ts).
 * Shapes follow interface-spec.md; where it says "not shown", decisions.md; the rest is designed here
 * and described inline.
 */
import {
  arrayOf,
  bool,
  dateTime,
  enumOf,
  freeObject,
  int,
  nullable,
  obj,
  ref,
  str,
  uuid,
  type Schema,
} from './helpers.js';
import { BODY_LIMITS, LIMITS } from '../../domain/text-rules.js';
import { webhookEventSchemas } from './webhook-deliveries.js';
import { webhookSchemas } from '../routes/webhooks.js';
import { teamSchemas } from '../routes/teams.js';
import { templateSchemas } from '../routes/templates.js';
import { bulkSendSchemas } from '../routes/bulk-sends.js';
import { exportSchemas } from '../routes/exports.js';
import { PARTICIPANT_ACTIONS, RECORD_ACTIONS } from '../../domain/records/lifecycle.js';
import { buildRequestSchemas, requiredMethodCount } from './request-schemas.js';
import { metaAndErrorSchemas } from './schemas-meta.js';
import {
  BLOCKCHAIN_STATUSES,
  COUNTER_STATUSES,
  IDENTICON_KINDS,
  INITIATOR_SIGNATURE_STATUSES,
  NOTARIZATION_CONTENT_TYPES,
  NOTARIZATION_SIGNATURE_MODES,
  OTP_PURPOSES,
  CONNECTOR_SCOPES,
  PARTICIPANT_ROLES,
  PARTY_CONTACT_POINT_TYPES,
  RECORD_STATUSES,
  RECORD_TYPES,
  SIGNING_ORDERS,
  SIGNATURE_EXECUTION_STATUSES,
  SIGNATURE_METHOD_STATUSES,
  SIGNATURE_METHOD_TYPES,
  API_KEY_SCOPES,
  VERIFICATION_MATCH_METHODS,
  VERIFICATION_VERDICTS,
} from './vocabulary.js';

const nullableString = (description?: string): Schema => nullable(str(description ? { description } : {}));
/** Record text as it is kept (as sent, within the request's cap): the one bound answers declare for it. */
const recordText = (): Schema => str({ maxLength: BODY_LIMITS.maxRawCharacters });
const line = (max: number): Schema => nullable(str({ maxLength: max }));
const nullableDateTime = (description?: string): Schema =>
  nullable(dateTime(description ? { description } : {}));

function recordSchemas(): Record<string, Schema> {
  return {
    ExternalAgreementResponse: obj(
      {
        id: uuid(),
        team_id: nullable(uuid({ description: "The team that owns it, shown to the team's own readers (null for anyone else, and for a personal record)." })),
        template: nullable(obj({ id: uuid(), version: int({ minimum: 1 }) }, 'all', { description: 'The template and version it was made from (null when typed).' })),
        agr_reference: str({ description: 'Public reference of the record (AGR reference).' }),
        type: enumOf(RECORD_TYPES),
        status: enumOf(RECORD_STATUSES),
        title: line(LIMITS.title),
        body: recordText(),
        body_hash: str(),
        summary: line(LIMITS.summary),
        language: nullableString(),
        jurisdiction: line(LIMITS.jurisdiction),
        initiated_via: str({ description: 'Channel the record was created through, e.g. `rest_api`, `mcp`.' }),
        current_version: int({ minimum: 1 }),
        required_signature_method_count: requiredMethodCount(
          'Distinct signature methods each signer must satisfy before finalization.',
        ),
        parties: arrayOf(ref('ExternalAgreementPartyResponse'), {
          description: 'Every participant: initiator, parties (or co-notarizers) and witnesses.',
        }),
        active_counter: nullable(ref('CounterProposalResponse'), {
          description: 'The active counter-proposal; at most one is active at a time.',
        }),
        witness_summary: nullable(ref('WitnessSummary')),
        supersedes_agr_id: nullable(uuid()),
        superseded_by_agr_id: nullable(uuid()),
        blockchain: nullable(ref('BlockchainRecordResponse')),
        metadata: freeObject(),
        notarization: nullable(ref('NotarizationPayload'), { description: 'Present for notarizations.' }),
        llm_analysis: nullable(freeObject()),
        initiator_signature: nullable(ref('InitiatorSignatureState')),
        lapse_days: nullable(int({ minimum: LIMITS.lapseDays.min, maximum: LIMITS.lapseDays.max, description: 'Days a submitted record waits for confirmations (null: the service default).' })),
        signing_order: enumOf(SIGNING_ORDERS, {
          description: '`parallel`: everyone was invited at submission; `sequential`: the parties sign one at a time in list order, then the witnesses.',
        }),
        current_signer_ids: arrayOf(uuid(), {
          uniqueItems: true,
          maxItems: LIMITS.parties + LIMITS.witnesses,
          description:
            'Whose turn it is: ids of the participants (other than the initiator) who may sign the current version now. In sequential order one party, ' +
            'or the witnesses once every party signed; empty unless the record is pending confirmation.',
        }),
        reminders: obj(
          {
            enabled: bool({ description: 'Whether reminders (mail, or messenger messages) go out to invited participants who have not signed.' }),
            every_days: nullable(int({ minimum: LIMITS.reminderEveryDays.min, maximum: LIMITS.reminderEveryDays.max, description: "Days between reminders (null: the service's `REMINDER_EVERY_DAYS`)." })),
            before_expiry_days: nullable(int({ minimum: LIMITS.reminderBeforeExpiryDays.min, maximum: LIMITS.reminderBeforeExpiryDays.max, description: "A last reminder this many days before expiry (null: the service's `REMINDER_BEFORE_EXPIRY_DAYS`; 0: none)." })),
          },
          ['enabled', 'every_days', 'before_expiry_days'],
        ),
        on_chain_full_text: bool({ description: 'The sealed text itself, not only its hash, goes on chain.' }),
        on_chain_include_verified_parties: bool({ description: 'Verified signer and witness details go into the on-chain metadata.' }),
        ready_for_submission: nullable(bool()),
        available_actions: arrayOf(enumOf(RECORD_ACTIONS), {
          uniqueItems: true,
          maxItems: RECORD_ACTIONS.length,
          description: 'The moves the reader may make on the record now, computed from the lifecycle table: a client offers exactly these (a move not listed is refused).',
        }),
        identicon: nullable(ref('ExternalIdenticonResponse'), {
          description: 'Document identicon metadata of a sealed record.',
        }),
        share_card: nullable(ref('ExternalShareCardResponse')),
        created_at: dateTime(),
        expires_at: nullableDateTime(),
        sealed_at: nullableDateTime(),
      },
      [
        'id',
        'agr_reference',
        'type',
        'status',
        'title',
        'body',
        'body_hash',
        'summary',
        'language',
        'jurisdiction',
        'initiated_via',
        'current_version',
        'required_signature_method_count',
        'parties',
        'active_counter',
        'supersedes_agr_id',
        'superseded_by_agr_id',
        'blockchain',
        'metadata',
        'llm_analysis',
        'created_at',
        'expires_at',
        'sealed_at',
      ],
      { description: 'A record: agreement, declaration, witnessed agreement or notarization.' },
    ),

    ExternalAgreementPartyResponse: obj(
      {
        id: uuid(),
        role: enumOf(PARTICIPANT_ROLES),
        display_name: nullableString(),
        contact_point_type: enumOf(PARTY_CONTACT_POINT_TYPES),
        contact_point_value: nullableString(
          'Populated only on authenticated reads by the relevant identity graph; otherwise null.',
        ),
        invited_at: dateTime(),
        confirmed_at: nullableDateTime(),
        confirmed_version: nullable(int({ description: 'Record version this participant signed.' })),
        declined_at: nullableDateTime(),
        declined_reason: nullableString(),
        waived_at: nullableDateTime(),
        signature_identicon: nullable(ref('ExternalIdenticonResponse')),
        signature_state: ref('PartySignatureState'),
        available_actions: arrayOf(enumOf(PARTICIPANT_ACTIONS), {
          uniqueItems: true,
          maxItems: PARTICIPANT_ACTIONS.length,
          description: "The initiator's moves on this participant now (complete without, waive, replace, resend), from the lifecycle table; empty for other readers.",
        }),
      },
      [
        'id',
        'role',
        'display_name',
        'contact_point_type',
        'contact_point_value',
        'invited_at',
        'confirmed_at',
        'confirmed_version',
        'declined_at',
        'declined_reason',
      ],
      { description: 'A participant of a record. Co-notarizers appear with role `party`.' },
    ),

    PartySignatureState: obj(
      {
        status: enumOf(['not_started', 'in_progress', 'finalized']),
        satisfied_method_count: int({ minimum: 0 }),
        can_finalize: bool(),
      },
      'all',
      { description: "A participant's signature for the current version, for live dashboards (no method details)." },
    ),

    CounterProposalResponse: obj(
      {
        id: uuid(),
        agreement_id: uuid(),
        status: enumOf(COUNTER_STATUSES),
        proposed_by_contact_point_id: uuid(),
        raw_input: line(LIMITS.counterRawInput),
        assisted_text: nullable(recordText()),
        proposed_body: recordText(),
        diff_summary: nullableString(),
        resolved_body: nullable(recordText()),
        created_at: dateTime(),
        resolved_at: nullableDateTime(),
      },
      'all',
    ),

    BlockchainRecordResponse: obj(
      {
        status: enumOf(BLOCKCHAIN_STATUSES),
        network: nullableString(),
        tx_hash: nullableString(),
        block_number: nullable(int({ format: 'int64' })),
        explorer_url: nullableString(),
        written_at: nullableDateTime(),
        on_chain_full_text: bool({
          description: 'True when the reconstructed sealed text was published instead of a hash-only payload.',
        }),
        on_chain_include_verified_parties: bool({
          description: 'True when verified signer or witness details are in the on-chain metadata.',
        }),
        metadata_hash: nullableString(
          'Hash of the sealed metadata payload used to derive verification artifacts and the document identicon.',
        ),
        retry_count: int({ minimum: 0, default: 0 }),
        next_retry_at: nullableDateTime(),
      },
      [
        'status',
        'network',
        'tx_hash',
        'block_number',
        'explorer_url',
        'written_at',
        'on_chain_full_text',
        'on_chain_include_verified_parties',
      ],
    ),

    ExternalIdenticonResponse: obj(
      {
        kind: enumOf(IDENTICON_KINDS),
        digest: str(),
        short_hash: str(),
        width: int(),
        height: int(),
        alt_text: str(),
        available: bool({ default: true }),
        svg_data_uri: nullable(
          str({
            maxLength: 262_144,
            description: 'Omitted by default; populated only when `image_representation=compatibility_data_uri` is requested.',
          }),
        ),
      },
      ['kind', 'digest', 'short_hash', 'width', 'height', 'alt_text'],
      {
        additionalProperties: false,
        description: 'Identicon metadata. By default it carries no image bytes and no data URI.',
      },
    ),

    ExternalShareCardResponse: obj(
      {
        filename: str(),
        content_type: str(),
        width: int(),
        height: int(),
        hash: str(),
        generated_at: dateTime(),
        available: bool(),
      },
      'all',
      {
        description:
          'Private share-card metadata. Never contains a storage path or download URL; use the card-ticket route.',
      },
    ),

    WitnessSummary: obj(
      {
        active: int({ minimum: 0, description: 'Witnesses currently active (not declined, waived or removed).' }),
        signed: int({ minimum: 0, description: 'Active witnesses who signed the current version.' }),
        declined: int({ minimum: 0 }),
        waived: int({ minimum: 0 }),
        max_active: int({ minimum: 0, description: 'Maximum number of active witnesses (5).' }),
      },
      'all',
      { description: 'Witness counts of a witnessed agreement or declaration.' },
    ),

    InitiatorSignatureState: obj(
      {
        status: enumOf(INITIATOR_SIGNATURE_STATUSES),
        required_signature_method_count: requiredMethodCount(),
        satisfied_method_count: int({ minimum: 0 }),
        can_finalize: bool(),
        confirmed_version: nullable(int()),
        finalized_at: nullableDateTime(),
      },
      'all',
      { description: "The initiator's signature progress on the current version." },
    ),
  };
}

function notarizationSchemas(): Record<string, Schema> {
  const payload = {
    content_type: enumOf(NOTARIZATION_CONTENT_TYPES),
    content_hash: str({ description: 'SHA-256 of the exact file bytes or of the normalized text (hex).' }),
    hash_algorithm: str({ const: 'sha256' }),
    label: nullableString(),
    filename: nullableString(),
    mime_type: nullableString(),
    size_bytes: nullable(int({ minimum: 0, format: 'int64' })),
  };
  return {
    NotarizationPayload: obj(
      {
        ...payload,
        text_public: bool(),
        text: nullable(recordText(), { description: 'The notarized text, for readers in the record\'s identity graph; the public payload carries it only when `text_public` is true.' }),
        signature_mode: enumOf(NOTARIZATION_SIGNATURE_MODES),
        agent_identifier: nullableString(),
        co_notarizer_count: int({ minimum: 0 }),
      },
      'all',
    ),

    PublicNotarizationPayload: obj(
      { ...payload, text: nullable(recordText(), { description: 'Present only when the notarized text is public.' }) },
      Object.keys(payload),
    ),

    NotarizationNextAction: obj(
      {
        tool: str({ description: 'MCP tool to call next, e.g. `start_signature_method`.' }),
        operation_id: str({ description: 'Equivalent REST operationId, e.g. `startNotarizationSignatureExecution`.' }),
        arguments: freeObject({ description: 'Arguments to pass to the tool (or path/body of the REST call).' }),
        description: str({ description: 'What the step does and what the human must do.' }),
      },
      ['tool', 'arguments', 'description'],
    ),

    ExternalNotarizationResponse: obj(
      {
        record: ref('ExternalAgreementResponse'),
        signature_execution: nullable(ref('SignatureExecutionResponse')),
        next_action: nullable(ref('NotarizationNextAction')),
        human_step: nullableString('What the human must do next, when anything.'),
      },
      ['record'],
      { additionalProperties: false },
    ),
  };
}

function ceremonySchemas(): Record<string, Schema> {
  return {
    SignatureMethodStep: obj(
      {
        prompt: nullableString('Instruction to show the human.'),
        proof_text: nullableString('Exact text to publish for public proof methods.'),
        proof_title: nullableString('Title to use for the public proof.'),
        url: nullable(str({ format: 'uri' }), { description: 'Where to act (e.g. messenger deep link).' }),
        challenge: nullableString('Challenge to complete (messenger code, WebAuthn challenge).'),
      },
      'all',
    ),

    SignatureMethodState: obj(
      {
        method_type: enumOf(SIGNATURE_METHOD_TYPES),
        status: enumOf(SIGNATURE_METHOD_STATUSES),
        step: nullable(ref('SignatureMethodStep')),
        satisfied_at: nullableDateTime(),
      },
      'all',
    ),

    SignatureExecutionResponse: obj(
      {
        id: uuid(),
        record_id: uuid(),
        party_id: uuid(),
        record_version: int({ minimum: 1 }),
        status: enumOf(SIGNATURE_EXECUTION_STATUSES),
        required_signature_method_count: requiredMethodCount(),
        satisfied_method_count: int({ minimum: 0 }),
        can_finalize: bool({
          description: 'True once the required number of distinct methods is satisfied.',
        }),
        methods: arrayOf(ref('SignatureMethodState'), { maxItems: SIGNATURE_METHOD_TYPES.length }),
        finalized_at: nullableDateTime(),
        signature_identicon: nullable(ref('ExternalIdenticonResponse'), {
          description: "The caller's signature identicon once finalized.",
        }),
      },
      'all',
      { description: "The caller's signature execution for one record version." },
    ),
  };
}

function publicSchemas(): Record<string, Schema> {
  return {
    ExternalPublicAgreementResponse: obj(
      {
        agr_reference: str(),
        type: enumOf(RECORD_TYPES),
        status: enumOf(RECORD_STATUSES),
        sealed_at: nullableDateTime(),
        expires_at: nullableDateTime(),
        party_count: int({ minimum: 0 }),
        blockchain: nullable(ref('BlockchainRecordResponse')),
        notarization: nullable(ref('PublicNotarizationPayload')),
        identicon: nullable(ref('ExternalIdenticonResponse'), {
          description: 'Document identicon metadata; sealed records only.',
        }),
      },
      ['agr_reference', 'type', 'status', 'sealed_at', 'expires_at', 'party_count', 'blockchain'],
      { description: 'Public view of a record: no body, cards, signature identicons or participant data.' },
    ),

    VerificationResultResponse: obj(
      {
        agr_reference: str(),
        record_found: bool(),
        record_match: nullable(bool(), {
          description: 'Whether the supplied artifact matches; null when no artifact was supplied.',
        }),
        verified: bool(),
        verdict: enumOf(VERIFICATION_VERDICTS, {
          description: 'Without an artifact the verdict is a certificate lookup (`certificate`), not proof of a match.',
        }),
        current_authority: nullableString(
          'AGR reference of the record that currently governs (the latest amendment), or null.',
        ),
        match_method: nullable(enumOf(VERIFICATION_MATCH_METHODS), {
          description: 'Which supplied input matched; null without an artifact or a match.',
        }),
        status: nullable(enumOf(RECORD_STATUSES)),
        sealed_at: nullableDateTime(),
        identicon: nullable(ref('ExternalIdenticonResponse'), {
          description: 'Public document identicon of a sealed record.',
        }),
        metadata_hash: nullableString('sha256 of the sealed metadata (sealed records); what is anchored on chain.'),
        sealed_metadata: nullable(freeObject(), {
          description:
            'The canonical sealed metadata exactly as anchored (RFC 8785; it holds nothing private), so anyone can archive it ' +
            'and verify offline with record-verify. Sealed records only; GET only.',
        }),
        blockchain: nullable(ref('BlockchainRecordResponse')),
        document: nullable(
          obj(
            {
              pades_level: nullableString(
                'B-B without a timestamp authority; B-LTA with one (signature timestamp, validation data, archive timestamps); B-T or B-LT when part of that could not be had.',
              ),
              certificate_subject: nullableString('The seal certificate\'s subject.'),
              certificate_sha256: nullableString('sha256:<hex> of the seal certificate (the sealed metadata\'s `seal.certificate_sha256`).'),
              versions: int({ minimum: 1, description: 'Versions of the PDF: 1 as sealed, one more per archive timestamp renewal.' }),
              current_hash: str({ description: 'Document hash (sha256) of the PDF served now.' }),
            },
            'all',
          ),
          { description: 'The sealed PDF once it exists (not for notarizations): its PAdES level and the seal certificate that signed it.' },
        ),
        document_version: nullable(
          obj(
            {
              version: int({ minimum: 1 }),
              current: bool({ description: 'Whether it is the PDF served now; false for an earlier version (before an archive timestamp was added, or a degraded seal was completed).' }),
              cause: enumOf(['sealed', 'archive_timestamp', 'completed'], {
                description: 'sealed: the PDF as sealed; archive_timestamp: a renewal appended validation data and a document timestamp; completed: a seal made while its authorities were down was given its missing timestamp and validation data.',
              }),
              created_at: dateTime(),
            },
            'all',
          ),
          { description: 'With a matching `document_hash`: which version of the sealed PDF it is.' },
        ),
      },
      [
        'agr_reference',
        'record_found',
        'record_match',
        'verified',
        'verdict',
        'current_authority',
        'match_method',
        'status',
        'sealed_at',
      ],
    ),
  };
}

function identitySchemas(): Record<string, Schema> {
  const apiKey = {
    id: uuid(),
    key_prefix: str({ description: 'Non-secret prefix for identification.' }),
    name: nullableString(),
    scopes: arrayOf(enumOf(API_KEY_SCOPES), { uniqueItems: true, maxItems: API_KEY_SCOPES.length }),
    last_used_at: nullableDateTime(),
    expires_at: nullableDateTime(),
    created_at: dateTime(),
  };
  return {
    APIKeySchema: obj(apiKey, 'all'),
    APIKeyCreatedSchema: obj(
      { ...apiKey, key: str({ description: 'The full key. Returned once, at creation only.' }) },
      'all',
    ),
    APIKeyListResponse: obj({ api_keys: arrayOf(ref('APIKeySchema')) }, 'all', {
      description: 'Non-revoked API keys of the caller.',
    }),
    ConnectorSchema: obj(
      {
        id: uuid(),
        client_id: str({ description: 'The OAuth client id the assistant registered.' }),
        client_name: nullableString('The name the assistant registered (its own claim).'),
        redirect_origin: str({ description: 'Origin of the redirect address the consent was given for.' }),
        scopes: arrayOf(enumOf(CONNECTOR_SCOPES), { uniqueItems: true, maxItems: CONNECTOR_SCOPES.length }),
        created_at: dateTime({ description: 'When the consent was given.' }),
        expires_at: dateTime({ description: 'End of the connection: 90 days after consent; refreshing never moves it.' }),
        last_used_at: nullableDateTime(),
      },
      'all',
      { description: 'A hosted assistant connected through the OAuth connector flow.' },
    ),
    ConnectorListResponse: obj({ connectors: arrayOf(ref('ConnectorSchema')) }, 'all', {
      description: 'Live connections of the caller.',
    }),

    ContactPointSchema: obj(
      {
        id: uuid(),
        type: str({ description: 'Normalized type such as `email`, `messenger` or a linked social handle.' }),
        value: str({ description: 'Normalized value.' }),
        value_hash: str({ description: 'SHA-256 of the normalized value.' }),
        first_verified_at: nullableDateTime(),
        last_verified_at: nullableDateTime(),
        created_at: dateTime(),
      },
      'all',
    ),
    ContactPointListResponse: obj({ contact_points: arrayOf(ref('ContactPointSchema')) }, 'all'),
    ContactPointLinkResponse: obj({ contact_point: ref('ContactPointSchema') }, 'all'),

    IdentityAgreementsResponse: obj(
      {
        agreements: arrayOf(ref('ExternalAgreementResponse'), { maxItems: 100 }),
        total: int({ minimum: 0 }),
        limit: int({ minimum: LIMITS.pageSize.min, maximum: LIMITS.pageSize.max }),
        offset: int({ minimum: 0 }),
      },
      'all',
    ),

    OTPRequestResponse: obj(
      { verification_event_id: uuid(), purpose: enumOf(OTP_PURPOSES), expires_at: dateTime() },
      'all',
      { description: 'The code itself goes to the email address only; it is never in a response.' },
    ),
    OTPVerifyResponse: obj(
      {
        verified: bool(),
        access_token: str({ description: 'Bearer token; `authenticate` purpose only.' }),
        token_type: str({ const: 'bearer' }),
        expires_in: int({ minimum: 1, description: 'Token lifetime in seconds.' }),
        identity_id: uuid(),
      },
      ['verified'],
      { description: 'Token fields are present for the `authenticate` purpose only.' },
    ),

    SignOutResponse: obj(
      { sessions_ended: int({ minimum: 0, description: 'How many sessions were ended: 1 for this one; with `everywhere`, every live session of the identity.' }) },
      'all',
      { description: 'The sessions ended, at once on every instance: their bearer tokens answer 401 from now on.' },
    ),

    AuditTrailEntry: obj(
      {
        seq: int({ minimum: 1 }),
        at: dateTime(),
        actor_role: enumOf(['initiator', 'party', 'witness', 'system']),
        move: str({ description: 'The lifecycle trigger or ceremony step (create, submit, method_satisfied, finalized, complete_signatures, ...).' }),
        version: int({ minimum: 1, description: 'The record version the move concerned.' }),
        method_type: nullable(str()),
        to_status: nullable(str({ description: 'The record status after a lifecycle move.' })),
        metadata_hash: nullable(str({ description: 'On the sealing entry: the seal\'s metadata hash.' })),
        prev_hash: nullable(str()),
        entry_hash: str({ description: 'sha256 of the RFC 8785 form of the entry, bound to the record and the previous entry.' }),
      },
      'all',
    ),
    AuditTrailResponse: obj(
      {
        record_id: uuid(),
        agr_reference: str(),
        head: nullable(str({ description: 'Hash of the last entry; the seal commits to the head before it.' })),
        chain_valid: bool({ description: 'Recomputed on read: false when any entry was changed after it was written.' }),
        entries: arrayOf(ref('AuditTrailEntry')),
      },
      'all',
      { description: 'The hash-chained audit trail of a record: every lifecycle move and ceremony step, no secrets, no contact values.' },
    ),

    ShareCardTicketResponse: obj(
      {
        url: str({ format: 'uri', description: 'Short-lived, single-use URL of the card image.' }),
        expires_at: dateTime(),
      },
      'all',
    ),
  };
}

/** All components.schemas, keyed by name. */
export function buildSchemas(): Record<string, Schema> {
  return {
    ...recordSchemas(),
    ...notarizationSchemas(),
    ...ceremonySchemas(),
    ...publicSchemas(),
    ...identitySchemas(),
    ...webhookEventSchemas(),
    ...webhookSchemas(),
    ...teamSchemas(),
    ...templateSchemas(),
    ...bulkSendSchemas(),
    ...exportSchemas(),
    ...metaAndErrorSchemas(),
    ...buildRequestSchemas(),
  };
}
