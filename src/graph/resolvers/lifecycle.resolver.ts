import { described } from '../describe.js';
import { Arg, Ctx, ID, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { AmendmentService } from '../../domain/records/amendment-service.js';
import type { CounterService } from '../../domain/records/counter-service.js';
import type { CounterView } from '../../domain/records/counter-view.js';
import type { LifecycleService } from '../../domain/records/lifecycle-service.js';
import type { RecordService } from '../../domain/records/record-service.js';
import type { RecordView } from '../../domain/records/record-view.js';
import type { RecordLifecycleEvent } from '../../domain/shared/events.js';
import type { GraphContext } from '../context.js';
import type { Cursored, RecordActivity } from '../context.js';
import { AmendInput, CounterProposalObject, CancelInput, DeclineInput, RecordActivityObject, RecordLifecycleEventObject, ResolveCounterInput, SubmitCounterInput } from '../types/lifecycle.types.js';
import { NamedPartyInput } from '../types/record.inputs.js';
import { RecordObject } from '../types/record.types.js';

@Resolver()
export class LifecycleResolver {
  constructor(
    private readonly deps: {
      lifecycle: LifecycleService;
      records: RecordService;
      counters: CounterService;
      amendments: AmendmentService;
    },
  ) {}

  @Mutation(() => RecordObject, { description: described('Creates an amendment draft of a sealed record', 'lifecycle.amend') })
  async amendAgreement(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('input', () => AmendInput) input: AmendInput): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.amendments.amend(principal, id, input));
  }

  @Mutation(() => RecordObject, {
    description: described('Cancels: a draft in place (cancelled_draft), a sealed record through a mutual cancellation draft', 'lifecycle.cancel'),
  })
  async cancelAgreement(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('input', () => CancelInput, { nullable: true }) input: CancelInput | null,
  ): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.amendments.cancel(principal, id, { ...input }));
  }

  @Mutation(() => CounterProposalObject, { description: described('Proposes a replacement body; non-initiator parties only', 'lifecycle.submitCounter') })
  submitCounter(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('input', () => SubmitCounterInput) input: SubmitCounterInput): Promise<CounterView> {
    return this.deps.counters.submit(principal, id, input);
  }

  @Query(() => CounterProposalObject, { description: described('A counter-proposal; any participant may read it', 'lifecycle.getCounter') })
  counter(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('counterId', () => ID) counterId: string): Promise<CounterView> {
    return this.deps.counters.get(principal, id, counterId);
  }

  @Mutation(() => RecordObject, { description: described('Accepts, partially accepts or rejects a counter; initiator only', 'lifecycle.resolveCounter') })
  async resolveCounter(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('counterId', () => ID) counterId: string,
    @Arg('input', () => ResolveCounterInput) input: ResolveCounterInput,
  ): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.counters.resolve(principal, id, counterId, input));
  }

  @Mutation(() => RecordObject, { description: described('Withdraws a counter; proposer only', 'lifecycle.withdrawCounter') })
  async withdrawCounter(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('counterId', () => ID) counterId: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.counters.withdraw(principal, id, counterId));
  }

  @Mutation(() => RecordObject, { description: described('Completes without a declined or removed party; initiator only', 'lifecycle.completeWithoutParticipant') })
  async completeWithoutParticipant(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('partyId', () => ID) partyId: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.waive(principal, id, partyId, 'complete_without'));
  }

  @Mutation(() => RecordObject, { description: described('Waives a declined or removed witness; initiator only', 'lifecycle.waiveWitness') })
  async waiveWitness(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('partyId', () => ID) partyId: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.waive(principal, id, partyId, 'waive_witness'));
  }

  @Mutation(() => RecordObject, { description: described('Waives a declined or removed co-notarizer; initiator only', 'lifecycle.waiveCoNotarizer') })
  async waiveCoNotarizer(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('partyId', () => ID) partyId: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.waive(principal, id, partyId, 'waive_co_notarizer'));
  }

  @Mutation(() => RecordObject, { description: described('Replaces a declined or removed witness; initiator only', 'lifecycle.replaceWitness') })
  async replaceWitness(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('partyId', () => ID) partyId: string,
    @Arg('input', () => NamedPartyInput) input: NamedPartyInput,
  ): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.replaceWitness(principal, id, partyId, input));
  }

  @Mutation(() => RecordObject, { description: described('Mails an invitation again; rate-limited', 'lifecycle.resendInvitation') })
  async resendInvitation(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('partyId', () => ID) partyId: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.resendInvitation(principal, id, partyId));
  }

  @Mutation(() => RecordObject, { description: described('Turns reminders to participants who have not signed off or on; initiator (or team admin) only', 'records.setReminders') })
  async setReminders(@Ctx() { principal }: GraphContext, @Arg('id') id: string, @Arg('enabled', () => Boolean) enabled: boolean): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.setReminders(principal, id, enabled));
  }

  @Mutation(() => RecordObject, { description: described('Submits a signed draft: invitations go out', 'lifecycle.submit') })
  async submitAgreement(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.submit(principal, id));
  }

  @Mutation(() => RecordObject, { description: described('Declines as an invited party or witness', 'lifecycle.decline') })
  async declineAgreement(
    @Ctx() { principal }: GraphContext,
    @Arg('id') id: string,
    @Arg('input', () => DeclineInput, { nullable: true }) input: DeclineInput | null,
  ): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.decline(principal, id, input?.reason));
  }

  @Mutation(() => RecordObject, { description: described('Ends a pending record; initiator only', 'lifecycle.rescind') })
  async rescindAgreement(@Ctx() { principal }: GraphContext, @Arg('id') id: string): Promise<RecordView> {
    return this.deps.records.afterChange(principal, await this.deps.lifecycle.rescind(principal, id));
  }


  @Subscription(() => RecordLifecycleEventObject, {
    description: 'Lifecycle moves of a record the subscriber may read',
    subscribe: ({ args, context }) => {
      const { live, principal } = context as GraphContext;
      if (!live) throw new Error('Subscriptions are served over graphql-ws only');
      const { recordId, after } = args as { recordId: string; after?: string | null };
      return live.recordLifecycle(principal, String(recordId), after ?? null);
    },
  })
  recordLifecycle(@Root() event: Cursored<RecordLifecycleEvent>, @Arg('recordId') _recordId: string, @Arg('after', () => String, { nullable: true, description: 'A cursor from an event this subscription (or an earlier one) gave: first replays the events after it (at most 500; more, or a cursor older than a week, is an error `resync_required`: re-read, then subscribe without it), then goes on live' }) _after: string | null): Cursored<RecordLifecycleEvent> {
    return event;
  }

  @Subscription(() => RecordActivityObject, {
    description: described("Every lifecycle move and ceremony step on the records in the subscriber's identity graph", 'records.activity'),
    subscribe: ({ args, context }) => {
      const { live, principal } = context as GraphContext;
      if (!live) throw new Error('Subscriptions are served over graphql-ws only');
      const { after, teamId } = args as { after?: string | null; teamId?: string | null };
      return live.recordActivity(principal, after ?? null, teamId ?? null);
    },
  })
  recordActivity(
    @Root() activity: Cursored<RecordActivity>,
    @Arg('after', () => String, { nullable: true, description: 'A cursor from an event this subscription (or an earlier one) gave: first replays the events after it (at most 500; more, or a cursor older than a week, is an error `resync_required`: re-read, then subscribe without it), then goes on live' }) _after: string | null,
    @Arg('teamId', () => ID, { nullable: true, description: "Only the records of this team (any role in it): a team's dashboard. A removed member's subscription hears nothing more of it." }) _teamId: string | null,
  ): Cursored<RecordActivity> {
    return activity;
  }
}
