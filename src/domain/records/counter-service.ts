import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ContactPoint } from '../identity/entities.js';
import type { Principal } from '../identity/principal.js';
import { requireAccess, type ScopedOperation } from '../identity/operation-access.js';
import { findRecordAsReader } from './record-access.js';
import type { Clock } from '../shared/clock.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import type { DomainEvents } from '../shared/events.js';
import { isUuid } from '../shared/ids.js';
import { CounterProposal, type Participant, type SignedRecord } from './entities.js';
import { optionalText, validateBody } from './record-input.js';
import { LIMITS } from '../text-rules.js';
import { fire, requireInitiator, withLockedRecord, type LockedRecord } from './record-lock.js';
import { isViewerParticipant } from './record-view.js';
import { readerOf } from '../teams/team-access.js';
import { completeIfAllSigned } from './completion.js';
import { textHash } from './text.js';
import { normalizeText } from '../text-rules.js';
import { toCounterView, type CounterView } from './counter-view.js';

export type { CounterView };

/** Words added and removed between two bodies, after normalization: a short human summary. */
function diffSummary(before: string, after: string): string {
  const count = (text: string) => {
    const words = new Map<string, number>();
    for (const word of normalizeText(text).toLowerCase().split(' ')) words.set(word, (words.get(word) ?? 0) + 1);
    return words;
  };
  const [a, b] = [count(before), count(after)];
  let added = 0;
  let removed = 0;
  for (const [word, n] of b) added += Math.max(0, n - (a.get(word) ?? 0));
  for (const [word, n] of a) removed += Math.max(0, n - (b.get(word) ?? 0));
  return `${added} word${added === 1 ? '' : 's'} added, ${removed} removed`;
}

/**
 * Counter-proposals: a non-initiator party proposes a full replacement body; the initiator accepts,
 * partially accepts (with the resolved body) or rejects; the proposer may withdraw. Accepting a
 * body change starts a new version: every signature of the old one stops counting.
 */
export class CounterService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      events: DomainEvents;
    },
  ) {}

  async submit(principal: Principal | null, idOrReference: string, input: { proposedBody: string; rawInput?: string | null }): Promise<CounterView> {
    return this.change(principal, idOrReference, 'lifecycle.submitCounter', async (locked) => {
      const { record, viewer, em, now } = locked;
      const proposer = record.participants
        .getItems()
        .find((p) => p.role === 'party' && !p.removedAt && !p.declinedAt && !p.waivedAt && isViewerParticipant(p, viewer));
      if (!proposer) throw new DomainError('forbidden', 'Only an invited non-initiator party can propose a counter');
      if (record.status === 'counter_under_review') throw new DomainError('counter_active', 'Another counter-proposal is already under review');
      const issues = new IssueCollector();
      validateBody(issues, input.proposedBody, ['proposedBody']);
      const rawInput = optionalText(issues, input.rawInput, 'rawInput', LIMITS.counterRawInput);
      issues.throwIfAny();
      if (textHash(input.proposedBody) === record.bodyHash) throw DomainError.invalid(['proposedBody'], 'The proposal is the current text', 'unchanged');
      fire(locked, 'submit_counter', proposer.id);
      const counter = em.create(CounterProposal, {
        record,
        proposedBy: proposer,
        proposedByContactPointId: await this.contactPointId(em, proposer, locked.caller.identityId),
        recordVersion: record.currentVersion,
        rawInput,
        proposedBody: input.proposedBody.normalize('NFC'),
        diffSummary: diffSummary(record.body, input.proposedBody),
        createdAt: now,
      });
      return toCounterView(counter);
    });
  }

  /** Any participant (anyone who can read the record) may read its counter-proposals; no lock taken. */
  async get(principal: Principal | null, idOrReference: string, counterId: string): Promise<CounterView> {
    const caller = requireAccess(principal, 'lifecycle.getCounter');
    const em = this.deps.orm.em.fork();
    const { record } = await findRecordAsReader(em, idOrReference, readerOf(caller));
    return toCounterView(await this.find(em, record, counterId));
  }

  async resolve(
    principal: Principal | null,
    idOrReference: string,
    counterId: string,
    input: { decision: string; resolvedBody?: string | null },
  ): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.resolveCounter', async (locked) => {
      const { record, em, now } = locked;
      requireInitiator(locked);
      const counter = await this.find(em, record, counterId);
      if (counter.status !== 'pending') throw new DomainError('conflict', `This counter-proposal is already ${counter.status}`);
      const issues = new IssueCollector();
      if (!['accept', 'partially_accept', 'reject'].includes(input.decision)) {
        issues.add(['decision'], "Decision must be 'accept', 'partially_accept' or 'reject'", 'invalid_enum');
      }
      if (input.decision === 'partially_accept') {
        if (input.resolvedBody == null) issues.add(['resolvedBody'], 'A partial acceptance needs the resolved body', 'missing');
        else validateBody(issues, input.resolvedBody, ['resolvedBody']);
      }
      issues.throwIfAny();
      fire(locked, 'resolve_counter');
      counter.resolvedAt = now;
      if (input.decision === 'reject') {
        counter.status = 'rejected';
        // Back to pending: waivers made during the review may have left everyone signed.
        locked.events.push(...(await completeIfAllSigned(em, record, now)));
        return record.id;
      }
      const body = input.decision === 'accept' ? counter.proposedBody : input.resolvedBody!.normalize('NFC');
      counter.status = input.decision === 'accept' ? 'accepted' : 'partially_accepted';
      counter.resolvedBody = body;
      if (textHash(body) !== record.bodyHash) {
        record.body = body;
        record.bodyHash = textHash(body);
        if (record.notarization) record.notarization = { ...record.notarization, contentHash: record.bodyHash };
        // A new version: signatures of the old one stop counting (confirmed_version shows what each signed).
        record.currentVersion += 1;
      }
      return record.id;
    });
  }

  async withdraw(principal: Principal | null, idOrReference: string, counterId: string): Promise<string> {
    return this.change(principal, idOrReference, 'lifecycle.withdrawCounter', async (locked) => {
      const { record, viewer, em, now } = locked;
      const counter = await this.find(em, record, counterId);
      if (!isViewerParticipant(counter.proposedBy, viewer)) throw new DomainError('forbidden', 'Only the proposing party can withdraw a counter-proposal');
      if (counter.status !== 'pending') throw new DomainError('conflict', `This counter-proposal is already ${counter.status}`);
      fire(locked, 'withdraw_counter', counter.proposedBy.id);
      counter.status = 'withdrawn';
      counter.resolvedAt = now;
      locked.events.push(...(await completeIfAllSigned(em, record, now)));
      return record.id;
    });
  }

  private async change<T>(principal: Principal | null, idOrReference: string, operation: ScopedOperation, work: (locked: LockedRecord) => Promise<T>): Promise<T> {
    return withLockedRecord(this.deps.orm, this.deps.events, () => this.deps.clock.now(), principal, idOrReference, operation, work);
  }

  private async find(em: EntityManager, record: SignedRecord, counterId: string): Promise<CounterProposal> {
    const counter = isUuid(counterId) ? await em.findOne(CounterProposal, { id: counterId, record }, { populate: ['proposedBy'] }) : null;
    if (!counter) throw DomainError.notFound('Counter-proposal');
    return counter;
  }

  private async contactPointId(em: EntityManager, proposer: Participant, identityId: string): Promise<string> {
    const point =
      (await em.findOne(ContactPoint, { identity: identityId, type: proposer.contactPointType, value: proposer.contactPointValue ?? '' })) ??
      (await em.findOneOrFail(ContactPoint, { identity: identityId }, { orderBy: { createdAt: 'asc' } }));
    return point.id;
  }
}
