import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../identity/principal.js';
import { allows, requireAccess, scopeOf } from '../identity/operation-access.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { Participant, SignedRecord, type InitiatedVia, type NotarizationDetails } from '../records/entities.js';
import { LIMITS } from '../text-rules.js';
import { normalizeParties, optionalText, validateBody, validateLapseDays, validateMethodCount } from '../records/record-input.js';
import { newRecordReference } from '../records/reference.js';
import { addInitiator, initiatorContactOf } from '../records/initiator.js';
import { textHash } from '../records/text.js';
import { openAuditTrail } from '../records/audit-trail.js';
import { teamOfNewRecord } from '../teams/team-access.js';
import { inOneTransaction, type SharedTransaction } from '../records/record-lock.js';
import type { DomainEvents } from '../shared/events.js';

/**
 * What an `auto_seal` notarization runs after its creation, in the creating transaction: the API key
 * signs it (CeremonyService.autoSeal) and submits it (LifecycleService.submit), which seals it.
 */
export type AutoSealSteps = {
  events: DomainEvents;
  sign: (principal: Principal, recordId: string, within: SharedTransaction) => Promise<void>;
  submit: (principal: Principal, recordId: string, within: SharedTransaction) => Promise<unknown>;
};

type CoNotarizerInput = { contactPointType?: string | null; contactPointValue: string; displayName: string };

export type CreateNotarizationInput = {
  contentType: string;
  contentHash: string;
  hashAlgorithm?: string | null;
  text?: string | null;
  filename?: string | null;
  sizeBytes?: number | null;
  mimeType?: string | null;
  label?: string | null;
  textPublic?: boolean | null;
  coNotarizers?: CoNotarizerInput[] | null;
  signatureMode?: string | null;
  agentIdentifier?: string | null;
  onChainIncludeVerifiedParties?: boolean | null;
  lapseDays?: number | null;
  requiredSignatureMethodCount?: number | null;
  /** The team that will own it (the caller's `member` role needed); a team's key: its team. */
  teamId?: string | null;
};

const HASH = /^(?:sha256:)?([0-9a-fA-F]{64})$/;

/**
 * Notarizations of a content hash: of a file's exact bytes (never the bytes themselves), of a
 * normalized text, or of a bare hash. The record's body is the text for text notarizations and a
 * generated statement of what is notarized otherwise.
 */
export class NotarizationService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      autoSeal: AutoSealSteps;
    },
  ) {}

  async create(principal: Principal | null, input: CreateNotarizationInput, via: InitiatedVia): Promise<{ recordId: string; autoSealed: boolean }> {
    const caller = requireAccess(principal, 'notarizations.create');
    const issues = new IssueCollector();
    const contentType = input.contentType;
    if (!['file', 'text', 'hash'].includes(contentType)) issues.add(['contentType'], "Must be 'file', 'text' or 'hash'", 'invalid_enum');
    if ((input.hashAlgorithm ?? 'sha256') !== 'sha256') issues.add(['hashAlgorithm'], "Only 'sha256' is supported", 'invalid_enum');
    const hashMatch = HASH.exec((input.contentHash ?? '').trim());
    if (!hashMatch) issues.add(['contentHash'], 'Give the SHA-256 as 64 hex digits, optionally prefixed with sha256:', 'invalid_hash');
    const contentHash = hashMatch ? `sha256:${hashMatch[1]!.toLowerCase()}` : '';
    const filename = optionalText(issues, input.filename, 'filename', LIMITS.notarizationFilename);
    const mimeType = optionalText(issues, input.mimeType, 'mimeType', LIMITS.notarizationMimeType);
    const label = optionalText(issues, input.label, 'label', LIMITS.notarizationLabel);
    const agentIdentifier = optionalText(issues, input.agentIdentifier, 'agentIdentifier', LIMITS.agentIdentifier);
    if (input.sizeBytes != null && (!Number.isInteger(input.sizeBytes) || input.sizeBytes < 0)) issues.add(['sizeBytes'], 'Must be a whole number of bytes', 'out_of_range');
    const lapseDays = validateLapseDays(issues, input.lapseDays);
    const methodCount = validateMethodCount(issues, input.requiredSignatureMethodCount);
    const signatureMode = input.signatureMode ?? 'pending_signature';
    if (!['pending_signature', 'auto_seal'].includes(signatureMode)) issues.add(['signatureMode'], "Must be 'pending_signature' or 'auto_seal'", 'invalid_enum');
    if (contentType === 'text') {
      if (typeof input.text !== 'string') issues.add(['text'], 'A text notarization carries its text', 'missing');
      else {
        validateBody(issues, input.text, ['text']);
        if (hashMatch && textHash(input.text) !== contentHash) {
          issues.add(['contentHash'], 'content_hash is not the SHA-256 of the normalized text', 'hash_mismatch');
        }
      }
    } else if (!label && !filename) {
      issues.add(['label'], 'A file or hash notarization needs a label or a filename', 'missing');
    }
    const coNotarizers = normalizeParties(
      issues,
      'coNotarizers',
      (input.coNotarizers ?? []).map((c) => ({ displayName: c.displayName, contactPointType: c.contactPointType === 'email' || c.contactPointType == null ? 'email' : null, contactPointValue: c.contactPointValue })),
      LIMITS.coNotarizers,
      { rejectAliases: true },
    );
    const em = this.deps.orm.em.fork();
    const initiator = await initiatorContactOf(em, caller);
    const seen = new Set(initiator ? [initiator.value] : []);
    coNotarizers.forEach((c, index) => {
      if (seen.has(c.contactPointValue)) issues.add(['coNotarizers', index, 'contactPointValue'], 'This address is already a participant', 'duplicate');
      seen.add(c.contactPointValue);
    });
    issues.throwIfAny();
    if (signatureMode === 'auto_seal') {
      // Authentication 8: bearer and OAuth sessions can never activate auto_seal.
      if (caller.kind !== 'api_key') throw new DomainError('forbidden', 'auto_seal is available to API-key callers only');
      // It signs and finalizes at once: the caller must be allowed to finalize as well.
      if (!allows(caller, 'ceremony.finalize')) {
        const scope = scopeOf('ceremony.finalize')!;
        throw new DomainError('missing_scope', `auto_seal signs with the API key: it needs the '${scope}' scope`, { requiredScopes: [scope] });
      }
      if (methodCount !== 1) throw DomainError.invalid(['requiredSignatureMethodCount'], 'auto_seal signs with the api_key method alone: use 1', 'not_allowed');
    }
    const teamId = await teamOfNewRecord(em, caller, input.teamId, signatureMode !== 'auto_seal', 'notarizations.create');

    const body = contentType === 'text' ? input.text!.normalize('NFC') : statement(contentType, contentHash, label, filename, mimeType, input.sizeBytes ?? null);
    const details: NotarizationDetails = {
      contentType: contentType as NotarizationDetails['contentType'],
      contentHash,
      hashAlgorithm: 'sha256',
      filename,
      sizeBytes: input.sizeBytes ?? null,
      mimeType,
      label,
      textPublic: input.textPublic ?? false,
      signatureMode: signatureMode as NotarizationDetails['signatureMode'],
      agentIdentifier,
    };
    const write = async (em: EntityManager): Promise<string> => {
      const now = this.deps.clock.now();
      const record = em.create(SignedRecord, {
        reference: newRecordReference(),
        type: 'notarization',
        title: label ?? filename,
        body,
        bodyHash: textHash(body),
        initiatedVia: via,
        requiredSignatureMethodCount: methodCount,
        lapseDays,
        onChainFullText: contentType === 'text' && details.textPublic,
        onChainIncludeVerifiedParties: input.onChainIncludeVerifiedParties ?? false,
        initiatorIdentity: caller.identityId,
        teamId,
        notarization: details,
        createdAt: now,
        updatedAt: now,
      });
      addInitiator(em, record, initiator, caller.identityId, now);
      coNotarizers.forEach((c, index) => em.create(Participant, { record, role: 'party', position: index + 1, ...c, invitedAt: now }));
      openAuditTrail(em, record.id, now, 'create');
      await em.flush();
      return record.id;
    };
    if (signatureMode !== 'auto_seal') return { recordId: await write(em), autoSealed: false };
    // Created, signed with the API key, submitted and sealed in one transaction: all of it, or nothing.
    const recordId = await inOneTransaction(this.deps.orm, this.deps.autoSeal.events, async (within) => {
      const id = await write(within.em);
      await this.deps.autoSeal.sign(caller, id, within);
      await this.deps.autoSeal.submit(caller, id, within);
      return id;
    });
    return { recordId, autoSealed: true };
  }
}

function statement(contentType: string, hash: string, label: string | null, filename: string | null, mimeType: string | null, size: number | null): string {
  const what = contentType === 'file' ? `the file ${filename ?? label ?? ''}`.trim() : `the content ${label ?? filename ?? ''}`.trim();
  const details = [mimeType ? `type ${mimeType}` : null, size != null ? `${size} bytes` : null].filter(Boolean).join(', ');
  return `Notarization of ${what}${details ? ` (${details})` : ''}: its SHA-256 digest is ${hash}.`;
}
