import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../identity/principal.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import type { DomainEvents } from '../shared/events.js';
import { openAuditTrail } from './audit-trail.js';
import { Participant, SignedRecord } from './entities.js';
import { transition } from './lifecycle.js';
import { optionalText, validateBody } from './record-input.js';
import { LIMITS } from '../text-rules.js';
import { fire, lifecycleEvent, requireInitiator, withLockedRecord, type LockedRecord } from './record-lock.js';
import { actsAsInitiator, isViewerParticipant } from './record-view.js';
import { newRecordReference } from './reference.js';
import { textHash } from './text.js';

export type AmendInput = { body: string; amendmentNote?: string | null; summary?: string | null };
export type CancelInput = { reason?: string | null; summary?: string | null };

/**
 * After sealing, a record changes only through a successor: an amendment (new text) or a mutual
 * cancellation. Either is a new draft that the same participants sign; when it seals, the original
 * becomes `superseded` (records/completion.ts).
 */
export class AmendmentService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      events: DomainEvents;
    },
  ) {}

  async amend(principal: Principal | null, idOrReference: string, input: AmendInput): Promise<string> {
    return withLockedRecord(this.deps.orm, this.deps.events, () => this.deps.clock.now(), principal, idOrReference, 'lifecycle.amend', async (locked) => {
      const issues = new IssueCollector();
      validateBody(issues, input.body);
      const note = optionalText(issues, input.amendmentNote, 'amendmentNote', LIMITS.reason);
      const summary = optionalText(issues, input.summary, 'summary', LIMITS.summary);
      issues.throwIfAny();
      if (textHash(input.body) === locked.record.bodyHash) throw DomainError.invalid(['body'], 'The amendment must change the text', 'unchanged');
      return this.successor(locked, 'amend', {
        body: input.body.normalize('NFC'),
        summary: summary ?? locked.record.summary,
        metadata: { kind: 'amendment', amends: locked.record.reference, amendment_note: note },
      });
    });
  }

  /**
   * Cancels a record: a draft in place (draft -> cancelled_draft, initiator only), a sealed record
   * through a mutual cancellation draft. Decided on the locked record, so a racing submit cannot
   * slip between the look at the status and the move.
   */
  async cancel(principal: Principal | null, idOrReference: string, input: CancelInput): Promise<string> {
    return withLockedRecord(this.deps.orm, this.deps.events, () => this.deps.clock.now(), principal, idOrReference, 'lifecycle.cancel', async (locked) => {
      const issues = new IssueCollector();
      const reason = optionalText(issues, input.reason, 'reason', LIMITS.reason);
      const summary = optionalText(issues, input.summary, 'summary', LIMITS.summary);
      issues.throwIfAny();
      const { record } = locked;
      if (record.status === 'draft') {
        requireInitiator(locked);
        fire(locked, 'cancel_draft');
        return record.id;
      }
      const title = record.title ? ` “${record.title}”` : '';
      const body =
        `Mutual cancellation of ${record.reference}${title}. The parties agree that the ${record.type.replace('_', ' ')} ` +
        `sealed as ${record.reference} is cancelled from the date this cancellation is sealed.` +
        (reason ? ` Reason: ${reason}` : '');
      return this.successor(locked, 'cancel', {
        body,
        summary: summary ?? `Cancels ${record.reference}`,
        metadata: { kind: 'mutual_cancellation', cancels: record.reference, reason },
      });
    });
  }

  private async successor(
    locked: LockedRecord,
    trigger: 'amend' | 'cancel',
    content: { body: string; summary: string | null; metadata: Record<string, unknown> },
  ): Promise<string> {
    const { record, viewer, caller, em, now } = locked;
    const self = record.participants.getItems().find((p) => p.role !== 'witness' && !p.removedAt && isViewerParticipant(p, viewer));
    if (!self && !actsAsInitiator(record, viewer)) throw new DomainError('forbidden', 'Only a party to the record can propose this');
    // A signatory proposes it as its initiator; an admin of the record's team who signs nothing of it
    // proposes it for the record's initiator, who signs it (an admin manages, never signs for them).
    const initiatorIdentity = self ? caller.identityId : record.initiatorIdentity;
    transition(record.status, trigger, record.type);
    const open = await em.count(SignedRecord, { supersedesRecordId: record.id, status: { $in: ['draft', 'pending_confirmation', 'counter_under_review'] } });
    if (open > 0) throw new DomainError('conflict', 'An amendment or cancellation of this record is already in progress');
    const next = em.create(SignedRecord, {
      reference: newRecordReference(),
      type: record.type,
      title: record.title,
      body: content.body,
      bodyHash: textHash(content.body),
      summary: content.summary,
      jurisdiction: record.jurisdiction,
      language: record.language,
      initiatedVia: record.initiatedVia,
      requiredSignatureMethodCount: record.requiredSignatureMethodCount,
      lapseDays: record.lapseDays,
      // The successor keeps the order its signers agreed to be asked in.
      signingOrder: record.signingOrder,
      onChainFullText: record.onChainFullText,
      onChainIncludeVerifiedParties: record.onChainIncludeVerifiedParties,
      initiatorIdentity,
      // A team's record stays the team's when one of its people amends it; an outside party's proposal is theirs.
      teamId: record.teamId !== null && viewer.teams.has(record.teamId) ? record.teamId : null,
      metadata: content.metadata,
      notarization: record.notarization ? { ...record.notarization, contentHash: textHash(content.body) } : null,
      supersedesRecordId: record.id,
      createdAt: now,
      updatedAt: now,
    });
    copyParticipants(em, record, next, self ?? null, initiatorIdentity, now);
    openAuditTrail(em, next.id, now, trigger === 'amend' ? 'amendment_created' : 'cancellation_created');
    locked.events.push(lifecycleEvent(record, trigger, record.status, self?.id ?? null, now));
    return next.id;
  }
}

/** The same people sign the successor; whoever proposed it is its initiator (the record's own initiator when no signatory did). */
function copyParticipants(em: EntityManager, from: SignedRecord, to: SignedRecord, proposer: Participant | null, identityId: string, now: Date): void {
  const active = from.participants.getItems().filter((p) => !p.removedAt && !p.waivedAt && !p.declinedAt);
  const initiator = proposer ?? active.find((p) => p.role === 'initiator');
  let position = 0;
  em.create(Participant, {
    record: to,
    role: 'initiator',
    position: position++,
    displayName: initiator?.displayName ?? null,
    contactPointType: initiator?.contactPointType ?? 'unknown',
    contactPointValue: initiator?.contactPointValue ?? null,
    identity: identityId,
    invitedAt: now,
  });
  for (const p of active) {
    if (p === initiator) continue;
    em.create(Participant, {
      record: to,
      role: p.role === 'initiator' ? 'party' : p.role,
      position: position++,
      displayName: p.displayName,
      contactPointType: p.contactPointType,
      contactPointValue: p.contactPointValue,
      identity: p.identity,
      invitedAt: now,
    });
  }
}
