/**
 * Request bodies of the REST API (components.schemas). Constraints are the spec's limits; unknown
 * properties are rejected only where the spec says so (CreateNotarizationRequest), elsewhere ignored.
 */
import { BODY_LIMITS, BODY_RULE, LIMITS, rangeOf } from '../../domain/text-rules.js';
import { API_KEY_NAME_MAX } from '../../domain/identity/api-key-service.js';
import { arrayOf, bool, dateTime, enumOf, freeObject, int, nullable, obj, ref, str, uuid, type Schema } from './helpers.js';
import {
  API_KEY_SCOPES,
  COUNTER_DECISIONS,
  INPUT_CONTACT_POINT_TYPES,
  NOTARIZATION_CONTENT_TYPES,
  NOTARIZATION_SIGNATURE_MODES,
  OTP_PURPOSES,
  RECORD_TYPES,
  SIGNING_ORDERS,
} from './vocabulary.js';

export function requiredMethodCount(description?: string): Schema {
  const schema: Schema = { type: 'integer', enum: rangeOf(LIMITS.signatureMethods), default: LIMITS.signatureMethods.min };
  if (description !== undefined) schema.description = description;
  return schema;
}

/**
 * The body limits count the normalized text (Unicode NFC, invisible characters removed, whitespace
 * runs collapsed, trimmed), which JSON Schema cannot express: the domain enforces them with a 422 on
 * `body`, and the schema caps the text as sent (which is also what answers declare, as it is kept).
 */
const RAW_TEXT_MAX = BODY_LIMITS.maxRawCharacters;

const recordBody = (description?: string): Schema =>
  str({
    minLength: 1,
    maxLength: RAW_TEXT_MAX,
    'x-normalized-length': { minimum: BODY_LIMITS.minCharacters, maximum: BODY_LIMITS.maxCharacters },
    'x-normalized-words': { minimum: BODY_LIMITS.minWords, maximum: BODY_LIMITS.maxWords },
    description: `${description ?? 'Exact text.'} ${BODY_RULE}.`,
  });
const title = (): Schema => nullable(str({ maxLength: LIMITS.title }));
const shortText = (): Schema => nullable(str({ maxLength: LIMITS.summary }));
const reasonText = (): Schema => nullable(str({ maxLength: LIMITS.reason }));
const lapseDays = (): Schema =>
  nullable(int({ minimum: LIMITS.lapseDays.min, maximum: LIMITS.lapseDays.max }), { description: 'Confirmation expiry override, in days.' });
const parties = (): Schema =>
  arrayOf(ref('NamedPartyInput'), {
    maxItems: LIMITS.parties,
    description: `Non-initiator parties: ${LIMITS.parties + 1} signing participants in total with the initiator.`,
  });
const witnesses = (): Schema => arrayOf(ref('NamedPartyInput'), { maxItems: LIMITS.witnesses, description: 'Active witnesses.' });
const onChainFullText = (): Schema =>
  bool({ description: 'Publish the reconstructed sealed text on chain instead of a hash-only payload.' });
const onChainVerifiedParties = (): Schema =>
  bool({
    description:
      'Put verified signer and witness details in the on-chain metadata. More public; must be acknowledged ' +
      'at finalization (`acknowledge_public_verified_parties`).',
  });
const signingOrder = (description: string): Schema => enumOf(SIGNING_ORDERS, { default: 'parallel', description });
const reminders = (): Schema =>
  obj(
    {
      enabled: bool({ default: true, description: 'false: no reminders for this record (the initiator can turn them on later).' }),
      every_days: nullable(int({ minimum: 1, maximum: 30, description: 'Days between reminders (null: the service default `REMINDER_EVERY_DAYS`).' })),
      before_expiry_days: nullable(
        int({ minimum: 0, maximum: 30, description: 'One more reminder when the record expires within this many days; 0: none (null: `REMINDER_BEFORE_EXPIRY_DAYS`).' }),
      ),
    },
    [],
    { description: 'Reminders (mail, or messenger messages) to participants who have been invited and have not signed.' },
  );
const otpCode = (): Schema => str({ pattern: '^[0-9]{6}$', description: 'The six-digit code.' });

function recordRequests(): Record<string, Schema> {
  return {
    NamedPartyInput: obj(
      {
        display_name: str({ minLength: 1, maxLength: LIMITS.displayName }),
        contact_point_type: enumOf(INPUT_CONTACT_POINT_TYPES, { default: 'email' }),
        contact_point_value: str({ minLength: 1, maxLength: LIMITS.contactPointValue, description: 'Email address or messenger handle.' }),
      },
      ['display_name', 'contact_point_value'],
      { description: 'A party or witness to invite.' },
    ),

    CreateAgreementRequest: obj(
      {
        type: enumOf(RECORD_TYPES, { default: 'agreement' }),
        title: title(),
        summary: shortText(),
        body: recordBody(),
        jurisdiction: nullable(str({ maxLength: LIMITS.jurisdiction })),
        parties: parties(),
        witnesses: witnesses(),
        on_chain_full_text: onChainFullText(),
        on_chain_include_verified_parties: onChainVerifiedParties(),
        lapse_days: lapseDays(),
        required_signature_method_count: requiredMethodCount(),
        signing_order: signingOrder(
          '`parallel`: every participant is invited at submission. `sequential`: the parties are invited one at a time in list order, ' +
            'each when the one before signed; only the party whose turn it is may sign; witnesses are invited once every party signed.',
        ),
        reminders: nullable(reminders()),
        team_id: nullable(uuid({ description: "The team that will own it (the caller's member role in it needed); none: the caller's own. A team's API key creates for its team." })),
      },
      ['body', 'on_chain_full_text', 'on_chain_include_verified_parties'],
    ),

    CreateDeclarationRequest: obj(
      {
        title: title(),
        summary: shortText(),
        body: recordBody(),
        witnesses: witnesses(),
        on_chain_full_text: onChainFullText(),
        on_chain_include_verified_parties: onChainVerifiedParties(),
        lapse_days: lapseDays(),
        required_signature_method_count: requiredMethodCount(),
        signing_order: signingOrder('A declaration has no other party: its witnesses are invited at submission either way.'),
        reminders: nullable(reminders()),
        team_id: nullable(uuid({ description: "The team that will own it (the caller's member role in it needed); none: the caller's own. A team's API key creates for its team." })),
      },
      ['body', 'on_chain_full_text', 'on_chain_include_verified_parties'],
      { description: 'A single-declarant draft, optionally witnessed.' },
    ),

    UpdateAgreementRequest: obj(
      {
        title: title(),
        summary: shortText(),
        body: recordBody('New exact text; a change resets the initiator\'s signature work for this draft.'),
        jurisdiction: nullable(str({ maxLength: LIMITS.jurisdiction })),
        parties: parties(),
        witnesses: witnesses(),
        lapse_days: lapseDays(),
        required_signature_method_count: requiredMethodCount(),
        on_chain_full_text: onChainFullText(),
        on_chain_include_verified_parties: onChainVerifiedParties(),
      },
      [],
      { minProperties: 1, description: 'Any subset of the create fields, with the same limits. Drafts only.' },
    ),

    AmendAgreementRequest: obj(
      { body: recordBody(), amendment_note: reasonText(), summary: shortText() },
      ['body'],
    ),
    CancelAgreementRequest: obj({ reason: shortText(), summary: shortText() }),
    DeclineRequest: obj({ reason: reasonText() }),

    SetRemindersRequest: obj({ enabled: bool({ description: 'false: no more reminders for this record; true: reminders again.' }) }, ['enabled']),

    SubmitCounterRequest: obj(
      {
        proposed_body: recordBody('The full proposed body (not a diff).'),
        raw_input: nullable(str({ maxLength: LIMITS.counterRawInput }), { description: 'What the party originally wrote, when assisted.' }),
      },
      ['proposed_body'],
    ),
    ResolveCounterRequest: obj(
      {
        decision: enumOf(COUNTER_DECISIONS),
        resolved_body: nullable(recordBody('The body to adopt; required for `partially_accept`.')),
      },
      ['decision'],
      {
        if: { properties: { decision: { const: 'partially_accept' } }, required: ['decision'] },
        then: { properties: { resolved_body: { type: 'string' } }, required: ['resolved_body'] },
      },
    ),
  };
}

function notarizationRequests(): Record<string, Schema> {
  return {
    CoNotarizerInput: obj(
      {
        contact_point_type: str({ const: 'email', default: 'email' }),
        contact_point_value: str({
          minLength: 3,
          maxLength: LIMITS.contactPointValue,
          description: 'Email address; normalized to lowercase, `+` aliases rejected.',
        }),
        display_name: str({ minLength: 1, maxLength: LIMITS.displayName }),
      },
      ['contact_point_value', 'display_name'],
      // Like the request around it: an unknown property is refused, not ignored.
      { additionalProperties: false },
    ),

    CreateNotarizationRequest: obj(
      {
        content_type: enumOf(NOTARIZATION_CONTENT_TYPES),
        content_hash: str({ description: 'SHA-256 of the exact file bytes or of the normalized text.' }),
        hash_algorithm: str({ const: 'sha256', default: 'sha256' }),
        text: nullable(recordBody('Raw text to normalize, for `text` notarization.')),
        filename: nullable(str({ maxLength: LIMITS.notarizationFilename })),
        size_bytes: nullable(int({ minimum: 0, format: 'int64' })),
        mime_type: nullable(str({ maxLength: LIMITS.notarizationMimeType })),
        label: nullable(str({ maxLength: LIMITS.notarizationLabel })),
        text_public: bool({ default: false }),
        co_notarizers: arrayOf(ref('CoNotarizerInput'), { maxItems: LIMITS.coNotarizers }),
        signature_mode: enumOf(NOTARIZATION_SIGNATURE_MODES, {
          default: 'pending_signature',
          description: '`auto_seal` is available to API-key callers only, not to bearer or OAuth sessions.',
        }),
        agent_identifier: nullable(str({ maxLength: LIMITS.agentIdentifier })),
        on_chain_include_verified_parties: bool({ default: false }),
        lapse_days: lapseDays(),
        required_signature_method_count: requiredMethodCount(),
        reminders: nullable(reminders()),
        team_id: nullable(uuid({ description: "The team that will own it (the caller's member role in it needed); none: the caller's own. A team's API key creates for its team." })),
      },
      ['content_type', 'content_hash'],
      {
        additionalProperties: false,
        description:
          'File and hash requests need a label or filename; text requests undergo normalized-text validation. ' +
          'Source file bytes are never accepted.',
      },
    ),
  };
}

function ceremonyRequests(): Record<string, Schema> {
  return {
    StartSignatureMethodRequest: obj(
      { handle: str({ description: 'Public handle for public proof posts (`codehost_gist`, `microblog_post`, `forum_post`).' }) },
      [],
      { description: '`{}` or method-specific hints.' },
    ),
    SubmitSignatureMethodRequest: obj(
      {
        code: str({ description: '`email_otp`: the signature code from the email (not an authentication code).' }),
        url: str({ format: 'uri', description: 'Public proof methods: URL of the published proof.' }),
        credential: freeObject({
          description: '`webauthn_passkey`: the registration or assertion response of the authenticator, as the step asked for.',
        }),
        confirmation: str({ description: '`api_key`: the confirmation text issued by the start step (API-key callers, notarizations only).' }),
      },
      [],
      { description: 'The user-provided evidence for the method; which field depends on the method.' },
    ),
    RefreshSignatureMethodRequest: obj({}, [], { description: 'Empty object.' }),
    FinalizeSignatureRequest: obj({
      acknowledge_public_verified_parties: bool({
        default: false,
        description:
          'Must be true when the record has `on_chain_include_verified_parties` = true; otherwise finalize ' +
          'answers 409 `acknowledgement_required`.',
      }),
    }),
  };
}

function identityRequests(): Record<string, Schema> {
  return {
    OTPRequest: obj(
      {
        email: str({ format: 'email', maxLength: LIMITS.contactPointValue }),
        purpose: enumOf(OTP_PURPOSES, {
          description: 'Codes are bound to their purpose and cannot replace each other. Use `authenticate` to sign in.',
        }),
      },
      ['email', 'purpose'],
    ),
    OTPVerifyRequest: obj({ verification_event_id: uuid(), code: otpCode() }, 'all'),
    SignOutRequest: obj(
      { everywhere: bool({ default: false, description: 'End every session of the caller\'s identity (other browsers and devices), not only this one. API keys and connected assistants stay.' }) },
      [],
    ),
    LinkContactPointRequest: obj(
      { verification_event_id: uuid({ description: 'Event of a `contact_point_link` OTP.' }), code: otpCode() },
      'all',
    ),
    CreateAPIKeyRequest: obj(
      {
        scopes: arrayOf(enumOf(API_KEY_SCOPES), { minItems: 1, uniqueItems: true, maxItems: API_KEY_SCOPES.length }),
        name: nullable(str({ maxLength: API_KEY_NAME_MAX })),
        expires_at: nullable(dateTime()),
      },
      ['scopes'],
    ),
    VerifyBodyRequest: obj(
      {
        text: str({ maxLength: RAW_TEXT_MAX, description: 'Text to normalize and compare with the sealed or notarized text.' }),
        body: str({ maxLength: RAW_TEXT_MAX, description: 'Exact record body.' }),
        content_hash: str({ description: 'Content SHA-256, `sha256:<hex>` or bare hex.' }),
        document_hash: str({ description: 'Hash of the sealed document.' }),
        tx_hash: str({ description: 'Blockchain transaction hash.' }),
      },
      [],
      {
        description: 'Exactly one of the fields.',
        oneOf: ['text', 'body', 'content_hash', 'document_hash', 'tx_hash'].map((field) => ({ required: [field] })),
      },
    ),
  };
}

export function buildRequestSchemas(): Record<string, Schema> {
  return { ...recordRequests(), ...notarizationRequests(), ...ceremonyRequests(), ...identityRequests() };
}
